package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keel call} without a terminal (stdin closed, stdout and stderr files; issue 20, Done
 * item 3) against the fixture server: nothing is ever asked and no escape code is drawn;
 * elicitation, forms and URLs, is answered per {@code --yes}/{@code --no} or not declared (with
 * a hint saying what to do). {@link KeelCliSamplingAndLogsTest} covers sampling and log
 * messages, {@link KeelCliAgentTest} the database agent.
 */
@OneJvm
class KeelCliScriptedTest {

  @TempDir
  static Path dir;

  private static McpHttpServer fixtures;
  private static String url;

  @BeforeAll
  static void start() throws Exception {
    fixtures = McpHttpServer.builder(withSignIn()).port(0).start();
    url = fixtures.endpoint().toString();
  }

  @AfterAll
  static void stop() throws Exception {
    if (fixtures != null) {
      fixtures.close();
    }
  }

  /**
   * The fixture server plus {@code sign_in}, which sends the person to a URL (URL-mode
   * elicitation) when the client declares it can.
   */
  static McpServer withSignIn() {
    return FixtureServer.create(b -> b.tool(Tool.builder("sign_in")
        .description("Sends the person to a sign-in page").build(), (ctx, args) -> {
          if (!ctx.clientCapabilities().supportsElicitationUrl()) {
            return CallToolResult.text("no url mode");
          }
          ElicitResult answer = ctx.elicit(ElicitRequest.url("Sign in to continue",
              "https://login.example.com/start", "login-1"));
          return CallToolResult.text("url mode: " + answer.action());
        }));
  }

  record Run(int exit, String out, String err) {

    /** Asserts that nothing was asked or drawn for a terminal. */
    Run askedNothing() {
      assertThat(err).doesNotContain("Answer it?").doesNotContain("\u001b")
          .doesNotContain("\r").doesNotContainPattern("[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]");
      return this;
    }
  }

  private static String fixturesUrl() {
    return url;
  }

  private static Run keel(String... args) throws Exception {
    return keelIn(dir, args);
  }

  /** Returns the java command as it is: KeelProcess already starts keel quickly. */
  static List<String> quick(List<String> javaCommand) {
    return javaCommand;
  }

  /** Runs keel in {@code dir} with stdin closed and stdout and stderr going to files. */
  static Run keelIn(Path dir, String... args) throws Exception {
    Path out = Files.createTempFile(dir, "out", ".txt");
    Path err = Files.createTempFile(dir, "err", ".txt");
    Process p = new ProcessBuilder(quick(KeelProcess.command(args))).directory(dir.toFile())
        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    p.getOutputStream().close();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("keel " + String.join(" ", args) + " did not finish");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void elicitationIsAnsweredPerYesOrNoAndNeverAsked() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      Run yes = keel("call", "--era", era, "--yes", url, "test_elicitation_sep1034_defaults")
          .askedNothing();
      assertThat(yes.exit()).as(era + ": " + yes.err()).isZero();
      assertThat(yes.out()).as(era).contains("accept").contains("John Doe");

      Run yesWithoutRequired = keel("call", "--era", era, "--yes", "--answer", "username=ada",
          url, "test_elicitation", "{\"message\":\"Who?\"}").askedNothing();
      assertThat(yesWithoutRequired.out()).as(era).contains("cancel").doesNotContain("ada");

      Run no = keel("call", "--era", era, "--no", url, "test_elicitation",
          "{\"message\":\"Who?\"}").askedNothing();
      assertThat(no.exit()).as(era + ": " + no.err()).isZero();
      assertThat(no.out()).as(era).contains("decline");
      assertThat(no.err()).as(era).contains("keel: declined (--no)");

      Run neither = keel("call", "--era", era, url, "test_elicitation",
          "{\"message\":\"Who?\"}").askedNothing();
      assertThat(neither.exit()).as(era).isNotZero();
      assertThat(neither.out()).as(era).doesNotContain("accept");
      assertThat(neither.err()).as(era).contains("run it at a terminal or pass --yes/--no");
    }
    Run signIn = keel("call", "--yes", fixturesUrl(), "sign_in").askedNothing();
    assertThat(signIn.out()).isEqualTo("url mode: ACCEPT\n");
    assertThat(signIn.err()).contains("keel: the server asks you to open this URL: "
        + "https://login.example.com/start");
    assertThat(keel("call", "--no", fixturesUrl(), "sign_in").askedNothing().out())
        .isEqualTo("url mode: DECLINE\n");
    assertThat(keel("call", fixturesUrl(), "sign_in").askedNothing().out())
        .as("no terminal, no flag: URL mode is not declared").isEqualTo("no url mode\n");
    Run both = keel("call", "--yes", "--no", url, "test_elicitation", "{\"message\":\"x\"}");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("--yes and --no contradict each other");
  }
}
