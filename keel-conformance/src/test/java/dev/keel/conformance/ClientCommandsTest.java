package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel tools}, {@code keel call} and {@code keel read} as a user runs them: real
 * processes against the fixture server over HTTP (in this JVM, so the test can watch the server)
 * and over stdio (the server a subprocess of the command).
 */
@OneJvm
class ClientCommandsTest {

  private static McpServer server;
  private static McpHttpServer http;
  private static String url;

  @TempDir
  static Path scratch;

  @BeforeAll
  static void start() {
    server = FixtureServer.create();
    // Default settings: a stateless call is cancelled by closing its stream, and the server
    // probes a running request's stream often enough to notice.
    http = McpHttpServer.builder(server).port(0).start();
    url = http.endpoint().toString();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  /** What a finished command printed. */
  record Run(int exit, String out, String err) {}

  private static Run keel(String... args) throws IOException, InterruptedException {
    Path out = Files.createTempFile(scratch, "out", ".txt");
    Path err = Files.createTempFile(scratch, "err", ".txt");
    Process p = new ProcessBuilder(KeelProcess.command(args)).redirectOutput(out.toFile())
        .redirectError(err.toFile()).start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("keel " + String.join(" ", args) + " did not finish");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  private static List<String> stdioServer() {
    return KeelProcess.command("fixtures", "--stdio");
  }

  private static String[] withStdio(List<String> own) {
    List<String> args = new ArrayList<>(own);
    args.add("--");
    args.addAll(stdioServer());
    return args.toArray(String[]::new);
  }

  /**
   * A command line that names its subcommand is given only that one (picocli's reflection over
   * all of them cost most of a second of every start): the others must still be listed by
   * {@code --help}, suggested for a misspelt name, and each must still parse on its own.
   */
  @Test
  void everySubcommandIsListedSuggestedAndRunsOnItsOwn() throws Exception {
    List<String> names = List.of("agent", "fixtures", "tools", "call", "read", "resources",
        "templates", "prompts", "prompt", "login", "conformance-client");
    Run help = keel("--help");
    assertThat(help.exit()).as(help.err()).isZero();
    for (String name : names) {
      assertThat(help.out()).containsPattern("(?m)^  " + name + " ");
      Run own = keel(name, "--help");
      assertThat(own.exit()).as(own.err()).isZero();
      assertThat(own.out()).startsWith("Usage: keel " + name + " ");
    }
    Run misspelt = keel("fixturs", "--port", "0");
    assertThat(misspelt.exit()).isNotZero();
    assertThat(misspelt.err()).contains("'fixturs'")
        .contains("keel fixtures");
    Run version = keel("--version");
    assertThat(version.out()).startsWith("keel ");
  }

  @Test
  void toolsListsTheToolsWithTheirArgumentsOverHttpAndStdio() throws Exception {
    Run overHttp = keel("tools", url);
    assertThat(overHttp.exit()).as(overHttp.err()).isZero();
    assertThat(overHttp.out()).containsPattern("(?m)^echo +Returns its text$")
        .contains("args: text: string (required)");

    Run overStdio = keel(withStdio(List.of("tools", "--stdio")));
    assertThat(overStdio.exit()).as(overStdio.err()).isZero();
    assertThat(overStdio.out()).containsPattern("(?m)^echo +Returns its text$");

    Run json = keel("tools", "--json", url);
    JsonNode tools = McpJson.standard().parse(json.out()).get("tools");
    assertThat(tools.isArray()).isTrue();
    List<String> names = new ArrayList<>();
    tools.forEach(t -> names.add(t.get("name").asString()));
    assertThat(names).contains("echo", "sleep");
  }

  @Test
  void callPrintsTheResultInBothErasOverHttpAndStdio() throws Exception {
    for (String era : List.of("auto", "legacy")) {
      Run overHttp = keel("call", "--era", era, url, "echo", "{\"text\":\"hello there\"}");
      assertThat(overHttp.exit()).as(overHttp.err()).isZero();
      assertThat(overHttp.out()).isEqualTo("hello there\n");

      Run overStdio = keel(withStdio(List.of("call", "--era", era, "--stdio", "echo",
          "{\"text\":\"over a pipe\"}")));
      assertThat(overStdio.exit()).as(overStdio.err()).isZero();
      assertThat(overStdio.out()).isEqualTo("over a pipe\n");
    }
    Run json = keel("call", "--json", url, "echo", "{\"text\":\"j\"}");
    assertThat(McpJson.standard().parse(json.out()).at("/content/0/text").asString())
        .isEqualTo("j");
  }

  @Test
  void callDrawsProgressOnStderrAndKeepsStdoutForTheResult() throws Exception {
    Run run = keel("call", url, "test_tool_with_progress");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err()).contains("]  50%  Completed step 50 of 100")
        .contains("100%  Completed step 100 of 100");
    assertThat(run.out()).startsWith("Progress reported for token").doesNotContain("%");
  }

  @Test
  void callWithTaskShowsTheTaskStatusInBothEras() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      Run run = keel("call", "--task", "--era", era, url, "slow_compute",
          "{\"seconds\":0.5}");
      assertThat(run.exit()).as(run.err()).isZero();
      assertThat(run.out()).isEqualTo("Computed result after 0.5 s\n");
      assertThat(run.err()).containsPattern("(?m)^task \\S+: working$")
          .containsPattern("(?m)^task \\S+: completed$");
    }
    Run notATask = keel("call", "--task", url, "echo", "{\"text\":\"x\"}");
    assertThat(notATask.exit()).isEqualTo(1);
    assertThat(notATask.err()).contains("does not run as a task");
  }

  @Test
  void readPrintsAResource() throws Exception {
    Run run = keel("read", url, "test://static-text");
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("This is the content of the static text resource.\n");
    Run overStdio = keel(withStdio(List.of("read", "--stdio", "test://static-text")));
    assertThat(overStdio.out()).isEqualTo(run.out());
  }

  @Test
  void badInputGetsAClearErrorAndAnExitStatus() throws Exception {
    Run noTarget = keel("tools");
    assertThat(noTarget.exit()).isEqualTo(2);
    assertThat(noTarget.err()).contains("missing TARGET");

    Run badJson = keel("call", url, "echo", "{text:");
    assertThat(badJson.exit()).isEqualTo(2);
    assertThat(badJson.err()).contains("JSON-ARGS is not valid JSON");

    Run wrongType = keel("call", url, "echo", "{\"text\":5}");
    assertThat(wrongType.exit()).isEqualTo(1);
    assertThat(wrongType.err()).contains("do not match its input schema");

    // The server refuses the request itself (a JSON-RPC error): a protocol error, not a tool's.
    Run unknownTool = keel("call", url, "no_such_tool");
    assertThat(unknownTool.exit()).isEqualTo(4);
    assertThat(unknownTool.err()).contains("keel: the server answered error");

    Run toolError = keel("call", url, "test_error_handling");
    assertThat(toolError.exit()).isEqualTo(1);
    assertThat(toolError.err()).contains("the tool reported an error");

    Run unreachable = keel("tools", "http://127.0.0.1:1/mcp");
    assertThat(unreachable.exit()).isEqualTo(3);
    assertThat(unreachable.err()).contains("http://127.0.0.1:1/mcp");

    // A timeout has its own status, apart from the tool's and the server's errors, in both eras.
    for (String era : List.of("modern", "legacy")) {
      Run timedOut = keel("call", "--era", era, "--timeout", "1", url, "sleep",
          "{\"ms\":30000}");
      assertThat(timedOut.exit()).as(era).isEqualTo(5);
      assertThat(timedOut.err()).contains("cancelled at the server");
      await().atMost(Duration.ofSeconds(10))
          .until(() -> server.metrics().inFlightRequests() == 0);
    }
  }

  @Test
  void stoppingACallCancelsItAtTheServer() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      long cancellationsBefore = server.metrics().cancellations();
      Process p = new ProcessBuilder(KeelProcess.command("call", "--era", era, url, "sleep",
          "{\"ms\":60000}")).redirectErrorStream(true)
          .redirectOutput(scratch.resolve("ctrl-c-" + era + ".txt").toFile()).start();
      try {
        await().atMost(Duration.ofSeconds(60))
            .until(() -> server.metrics().inFlightRequests() == 1);
        // What Ctrl-C does, minus the terminal: the JVM's shutdown runs the cancel hook.
        p.destroy();
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      } finally {
        p.destroyForcibly();
      }
      await().atMost(Duration.ofSeconds(10))
          .until(() -> server.metrics().inFlightRequests() == 0);
      assertThat(server.metrics().cancellations()).as(era).isGreaterThan(cancellationsBefore);
    }
  }
}
