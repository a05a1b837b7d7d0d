package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code keel call} answers when the server asks (real processes against the fixture
 * server): elicitation forms from {@code --answer} flags, and roots (the current directory for a
 * stdio server, the {@code --root} directories for any server), in both eras.
 */
@OneJvm
class KeelCallHostTest {

  private static McpServer server;
  private static McpHttpServer http;
  private static String url;

  @TempDir
  static Path scratch;

  @BeforeAll
  static void start() {
    server = FixtureServer.create();
    http = McpHttpServer.builder(server).port(0).start();
    url = http.endpoint().toString();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  record Run(int exit, String out, String err) {}

  private static Run keel(File dir, List<String> args) throws Exception {
    Path out = Files.createTempFile(scratch, "out", ".txt");
    Path err = Files.createTempFile(scratch, "err", ".txt");
    Process p = new ProcessBuilder(KeelProcess.command(args.toArray(String[]::new)))
        .directory(dir).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    p.getOutputStream().close(); // stdin is no terminal: nothing is asked interactively
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("keel " + String.join(" ", args) + " did not finish");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }

  @Test
  void answerFlagsFillTheServersElicitationFormInBothEras() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      Run run = keel(scratch.toFile(), List.of("call", "--era", era,
          "--answer", "username=ada", "--answer", "email=ada@example.com", url,
          "test_elicitation", "{\"message\":\"Who are you?\"}"));
      assertThat(run.exit()).as(era + ": " + run.err()).isZero();
      assertThat(run.out()).as(era).startsWith("User response: ").contains("accept")
          .contains("ada").contains("ada@example.com");
      assertThat(run.err()).as(era).contains("Who are you?");
    }
  }

  @Test
  void aFormWhoseRequiredFieldHasNoAnswerIsCancelledNotGuessed() throws Exception {
    Run run = keel(scratch.toFile(), List.of("call", "--answer", "username=ada", url,
        "test_elicitation", "{\"message\":\"Who are you?\"}"));
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).contains("cancel").doesNotContain("ada");
    assertThat(run.err()).contains("email");
  }

  @Test
  void withoutAnswersOrATerminalNoElicitationIsOffered() throws Exception {
    Run run = keel(scratch.toFile(), List.of("call", "--era", "legacy", url,
        "test_elicitation", "{\"message\":\"Who are you?\"}"));
    assertThat(run.exit()).isNotZero();
    assertThat(run.out()).doesNotContain("accept");
  }

  @Test
  void aStdioServerIsOfferedTheCurrentDirectoryAsItsRoot() throws Exception {
    Path here = Files.createDirectories(scratch.resolve("project"));
    for (String era : List.of("auto", "legacy")) {
      List<String> args = new ArrayList<>(List.of("call", "--era", era, "--stdio",
          "test_input_required_result_list_roots", "--"));
      args.addAll(KeelProcess.command("fixtures", "--stdio"));
      Run run = keel(here.toFile(), args);
      assertThat(run.exit()).as(era + ": " + run.err()).isZero();
      assertThat(run.out()).as(era).isEqualTo("Found 1 root(s): " + here.toUri()
          .toString().replaceAll("/$", "") + "\n");
    }
  }

  @Test
  void anHttpServerIsOfferedOnlyTheRootsNamedOnTheCommandLine() throws Exception {
    Path named = Files.createDirectories(scratch.resolve("named"));
    Run withRoot = keel(scratch.toFile(), List.of("call", "--root", named.toString(), url,
        "test_input_required_result_list_roots"));
    assertThat(withRoot.exit()).as(withRoot.err()).isZero();
    assertThat(withRoot.out()).isEqualTo("Found 1 root(s): " + named.toUri().toString()
        .replaceAll("/$", "") + "\n");

    Run without = keel(scratch.toFile(), List.of("call", url,
        "test_input_required_result_list_roots"));
    assertThat(without.out()).doesNotContain(scratch.toUri().toString().replaceAll("/$", ""));
  }
}
