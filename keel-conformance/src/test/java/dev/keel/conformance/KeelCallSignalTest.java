package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ctrl-C on a real {@code keel call} in a legacy session: SIGINT reaches the process (the
 * terminal sends it to the foreground job; the test sends it to the process), the call is
 * cancelled at the server with {@code notifications/cancelled}, and then the session is ended
 * with DELETE. Closing the client must not depend on the interrupt that stopped the call.
 */
class KeelCallSignalTest {

  private static McpServer server;
  private static McpHttpServer http;
  /** Why each call of {@code wait} was cancelled, in order: the first reason wins. */
  private static final List<String> reasons = new CopyOnWriteArrayList<>();
  /**
   * Set when the tool's handler runs. "One request in flight" alone is not enough: on a cold JVM
   * the {@code initialize} (or a listing) before the call can be the one in flight, and a
   * SIGINT sent then ends the command before the tool was ever called.
   */
  private static final CountDownLatch running = new CountDownLatch(1);

  @TempDir
  static Path scratch;

  @BeforeAll
  static void start() {
    server = McpServer.builder().name("signal-test")
        .tool(Tool.builder("wait").description("Waits until cancelled")
            .inputSchema("{\"type\":\"object\"}").build(), (ctx, args) -> {
              running.countDown();
              try {
                Thread.sleep(120_000);
              } catch (InterruptedException e) {
                reasons.add(String.valueOf(ctx.cancellation().reason()));
                throw e;
              }
              return CallToolResult.text("never cancelled");
            })
        .build();
    http = McpHttpServer.builder(server).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  @Test
  void ctrlCOnALegacyCallCancelsItAndThenEndsTheSession() throws Exception {
    Process p = new ProcessBuilder(KeelProcess.command("call", "--era", "legacy",
        http.endpoint().toString(), "wait")).redirectErrorStream(true)
        .redirectOutput(scratch.resolve("ctrl-c.txt").toFile()).start();
    try {
      assertThat(running.await(60, TimeUnit.SECONDS)).isTrue();
      assertThat(server.metrics().inFlightRequests()).isEqualTo(1);
      assertThat(server.metrics().sessions()).isEqualTo(1);
      Process kill = new ProcessBuilder("kill", "-INT", Long.toString(p.pid())).start();
      assertThat(kill.waitFor(10, TimeUnit.SECONDS)).isTrue();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).isEqualTo(130);
    } finally {
      p.destroyForcibly();
    }
    await().atMost(Duration.ofSeconds(10))
        .until(() -> server.metrics().inFlightRequests() == 0);
    // notifications/cancelled first (its reason names the client), the DELETE after it: the
    // session is gone rather than left to the idle timeout.
    assertThat(reasons).singleElement().asString().startsWith("client:");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.metrics().sessions() == 0);
  }
}
