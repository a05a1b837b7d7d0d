package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.McpHttpServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel call} at a real terminal (a tmux pseudo-terminal; issue 20, Done item 3): the
 * person answers an elicitation form field by field, approves one {@code insert_row} of a real
 * {@code keel agent --allow-writes} and declines another (the database then holds the approved
 * row only), is shown a URL to open and the call waits, sees the server's log messages with
 * {@code -v}, and sees an elapsed-time spinner during a silent call, replaced by the progress bar
 * when progress comes, and gone once the result prints.
 */
@OneJvm
class KeelCliTerminalTest {

  private static final String FRAMES = "[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]";
  private static final Pattern SPINNER = Pattern.compile(FRAMES + " test_sleep (\\d+)\\.\\ds");

  @TempDir
  static Path dir;

  private static McpHttpServer fixtures;
  private static String url;
  private static KeelAgentProcess agent;
  private static TmuxTerminal terminal;

  @BeforeAll
  static void start() throws Exception {
    terminal = TmuxTerminal.start(dir);
    fixtures = McpHttpServer.builder(KeelCliScriptedTest.withSignIn()).port(0).start();
    url = fixtures.endpoint().toString();
    agent = KeelAgentProcess.start("--allow-writes");
  }

  @AfterAll
  static void stop() throws Exception {
    if (terminal != null) {
      terminal.close();
    }
    if (agent != null) {
      agent.close();
    }
    if (fixtures != null) {
      fixtures.close();
    }
  }

  private static String keel(String... args) throws Exception {
    return terminal.run(dir, KeelCliScriptedTest.quick(KeelProcess.command(args)));
  }

  @Test
  void aPersonAnswersAnElicitationFormFieldByField() throws Exception {
    String s = keel("call", url, "test_elicitation", "{\"message\":\"Who are you?\"}");
    terminal.await(s, "Answer it\\? \\[y\\]es, \\[n\\]o \\(decline\\), \\[c\\]ancel: $", 30);
    terminal.type(s, "y");
    terminal.await(s, "username \\(string, required\\) - Your user name: $", 10);
    terminal.type(s, "ada");
    terminal.await(s, "email \\(string, required\\) - Your email address: $", 10);
    terminal.type(s, "ada@example.com");
    String screen = terminal.await(s, "^EXIT:\\d+", 20);
    assertThat(screen).contains("keel: the server asks: Who are you?")
        .contains("EXIT:0").containsPattern("User response: .*accept")
        .contains("ada@example.com");
  }

  @Test
  void aUrlTheServerWantsOpenedIsShownAndTheCallWaitsForThePerson() throws Exception {
    String s = keel("call", url, "sign_in");
    String asked = terminal.await(s, "Open it, then continue\\? .*: $", 30);
    assertThat(asked).contains("keel: the server asks you to open this URL: "
        + "https://login.example.com/start").contains("Sign in to continue");
    Thread.sleep(300);
    assertThat(terminal.screen(s)).as("it waits").doesNotContain("EXIT:");
    terminal.type(s, "y");
    String done = terminal.await(s, "^EXIT:\\d+", 20);
    assertThat(done).contains("url mode: ACCEPT").contains("EXIT:0");
  }

  @Test
  void aPersonApprovesOneInsertOfTheAgentAndDeclinesAnother() throws Exception {
    String yes = keel("call", agent.url(), "insert_row",
        "{\"table\":\"regions\",\"values\":{\"id\":901,\"name\":\"Approved at a terminal\"}}");
    String asked = terminal.await(yes, "Answer it\\? .*: $", 30);
    assertThat(asked).contains("Insert into regions the row");
    terminal.type(yes, "y");
    terminal.await(yes, "approve \\(boolean, required\\) - Set to true to allow this action "
        + "\\[y/n\\]: $", 10);
    terminal.type(yes, "y");
    String approved = terminal.await(yes, "^EXIT:\\d+", 20);
    assertThat(approved).contains("EXIT:0").contains("\"rowsChanged\":1");

    String no = keel("call", agent.url(), "insert_row",
        "{\"table\":\"regions\",\"values\":{\"id\":902,\"name\":\"Declined at a terminal\"}}");
    terminal.await(no, "Answer it\\? .*: $", 30);
    terminal.type(no, "n");
    String declined = terminal.await(no, "^EXIT:\\d+", 20);
    assertThat(declined).contains("EXIT:1").contains("Not approved; nothing was written");

    JsonNode rows = query(agent.url(), "SELECT id, name FROM regions WHERE id > 900 ORDER BY id")
        .get("structuredContent").get("rows");
    assertThat(rows.toString()).isEqualTo("[[901,\"Approved at a terminal\"]]");
  }

  @Test
  void verboseShowsTheServersLogMessagesOnTheTerminal() throws Exception {
    String s = keel("call", "-v", url, "test_tool_with_logging");
    String screen = terminal.await(s, "^EXIT:\\d+", 30);
    assertThat(screen).contains("EXIT:0")
        .contains("keel: [info] keel-fixtures: Tool execution started")
        .contains("keel: [info] keel-fixtures: Tool execution completed")
        .contains("Tool with logging executed successfully");
  }

  @Test
  void aSilentCallShowsAnElapsedTimeSpinnerThatIsGoneWhenTheResultPrints() throws Exception {
    String s = keel("call", url, "test_sleep", "{\"ms\":3000}");
    String early = terminal.await(s, SPINNER.pattern(), 30);
    Matcher first = SPINNER.matcher(early);
    assertThat(first.find()).isTrue();
    String later = terminal.await(s, FRAMES + " test_sleep [2-9]\\.\\ds|^EXIT:", 20);
    String done = terminal.await(s, "^EXIT:\\d+", 20);
    assertThat(later).as("the spinner counts the seconds").containsPattern(
        "test_sleep [2-9]\\.\\ds|EXIT:0");
    assertThat(done).contains("slept 3000 ms").contains("EXIT:0");
    assertThat(SPINNER.matcher(done).find()).as("the spinner is cleared:\n" + done).isFalse();
    // the result starts at the beginning of its line, where the spinner was
    assertThat(done).containsPattern("(?m)^slept 3000 ms$");
  }

  @Test
  void progressReplacesTheSpinnerAndIsClearedBeforeTheResult() throws Exception {
    String s = keel("call", url, "ticks", "{\"n\":4,\"ms\":700}");
    String drawing = terminal.await(s, "\\[#+-*\\] +\\d+%  tick \\d", 30);
    assertThat(drawing).doesNotContainPattern(FRAMES + " ticks");
    String done = terminal.await(s, "^EXIT:\\d+", 20);
    assertThat(done).containsPattern("(?m)^ticked 4$").contains("EXIT:0")
        .doesNotContain("tick 4").doesNotContain("%");
  }

  /** Runs {@code keel call --json URL query} without a terminal and returns the result. */
  static JsonNode query(String agentUrl, String sql) throws Exception {
    Path out = Files.createTempFile(dir, "query", ".json");
    List<String> args = new ArrayList<>(List.of("call", "--json", agentUrl, "query",
        McpJson.standard().write(McpJson.object().put("sql", sql))));
    Process p = new ProcessBuilder(KeelProcess.command(args.toArray(String[]::new)))
        .redirectOutput(out.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    p.getOutputStream().close();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    return McpJson.standard().parse(Files.readString(out, StandardCharsets.UTF_8));
  }
}
