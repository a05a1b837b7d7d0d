package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static dev.keel.conformance.KeelCliScriptedTest.keelIn;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.conformance.KeelCliScriptedTest.Run;
import dev.keel.mcp.http.McpHttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code keel call} without a terminal, sampling and log messages (issue 20): sampling goes to
 * the {@code --sampling-command} and is refused clearly when it fails, or is not declared;
 * the server's log messages show per {@code -v}/{@code --log-level}, progress still shows, and
 * a silent call draws nothing on stderr.
 */
@OneJvm
class KeelCliSamplingAndLogsTest {

  @TempDir
  static Path dir;

  private static McpHttpServer fixtures;
  private static String url;

  @BeforeAll
  static void start() {
    fixtures = McpHttpServer.builder(FixtureServer.create()).port(0).start();
    url = fixtures.endpoint().toString();
  }

  @AfterAll
  static void stop() {
    fixtures.close();
  }

  @Test
  void samplingGoesToTheConfiguredCommandAndIsRefusedClearlyWhenItFails() throws Exception {
    Path reply = dir.resolve("reply.sh");
    Files.writeString(reply, "#!/bin/sh\n"
        + "grep -q '\"messages\"' && echo \"a reply from the command\"\n");
    reply.toFile().setExecutable(true);
    for (String era : List.of("modern", "legacy")) {
      Run ok = keelIn(dir, "call", "--era", era, "--sampling-command", "sh " + reply, url,
          "test_sampling", "{\"prompt\":\"Say hi\"}").askedNothing();
      assertThat(ok.exit()).as(era + ": " + ok.err()).isZero();
      assertThat(ok.out()).as(era).isEqualTo("LLM response: a reply from the command\n");

      Run failing = keelIn(dir, "call", "--era", era, "--sampling-command", "sh -c 'exit 3'",
          url,           "test_sampling", "{\"prompt\":\"Say hi\"}").askedNothing();
      assertThat(failing.exit()).as(era).isNotZero();
      assertThat(failing.err()).as(era).contains("the sampling command sh exited with status 3;"
          + " the sampling request is refused");
    }
    Run none = keelIn(dir, "call", url, "test_sampling", "{\"prompt\":\"Say hi\"}")
        .askedNothing();
    assertThat(none.exit()).isNotZero();
    assertThat(none.err()).contains("sampling");
  }

  @Test
  void logMessagesShowPerVerbosityAndASilentCallDrawsNothing() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      Run verbose = keelIn(dir, "call", "--era", era, "-v", url, "test_tool_with_logging")
          .askedNothing();
      assertThat(verbose.exit()).as(era + ": " + verbose.err()).isZero();
      assertThat(verbose.err()).as(era).contains(
          "keel: [info] keel-fixtures: Tool execution started\n"
              + "keel: [info] keel-fixtures: Tool processing data\n"
              + "keel: [info] keel-fixtures: Tool execution completed\n");
      Run quiet = keelIn(dir, "call", "--era", era, url, "test_tool_with_logging")
          .askedNothing();
      assertThat(quiet.err()).as(era).doesNotContain("keel: [info]");
    }
    Run onlyErrors = keelIn(dir, "call", "--log-level", "error", url, "test_tool_with_logging")
        .askedNothing();
    assertThat(onlyErrors.err()).doesNotContain("keel: [info]");
    Run progress = keelIn(dir, "call", "-v", url, "test_tool_with_progress").askedNothing();
    assertThat(progress.err()).contains("Completed step 50 of 100");
    Run silent = keelIn(dir, "call", url, "test_sleep", "{\"ms\":1200}").askedNothing();
    assertThat(silent.out()).isEqualTo("slept 1200 ms\n");
    assertThat(silent.err()).isEmpty();
    Run badLevel = keelIn(dir, "call", "--log-level", "loud", url, "echo", "{\"text\":\"x\"}");
    assertThat(badLevel.exit()).isEqualTo(2);
    assertThat(badLevel.err()).contains("--log-level must be one of debug");
  }

}
