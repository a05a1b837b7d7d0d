package dev.keel.mcp.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The server's gauges and counters as Micrometer reads them, live, from a real server over
 * HTTP on 127.0.0.1: sessions and their refusals, listening streams, a request in flight and
 * one refused at the in-flight limit.
 */
class KeelMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final CountDownLatch running = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);
  private McpServer server;
  private McpHttpServer http;

  @BeforeEach
  void start() {
    KeelMetrics metrics = KeelMetrics.of(registry, java.util.List.of(Tag.of("app", "test")));
    server = McpServer.builder().name("metered").version("1.0.0")
        .maxSessions(1)
        .maxInFlightRequests(1)
        .observer(metrics.serverObserver())
        .tool(Tool.builder("block").inputSchema("{\"type\":\"object\"}").build(), (ctx, a) -> {
          running.countDown();
          release.await(30, TimeUnit.SECONDS);
          return CallToolResult.text("done");
        })
        .build();
    metrics.bind(server, Tag.of("server", "metered"));
    http = McpHttpServer.builder(server).host("127.0.0.1").port(0).start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    http.close();
    server.close();
  }

  private McpClient legacyClient() {
    return McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .era(Era.LEGACY).requestTimeout(Duration.ofSeconds(30)).connect();
  }

  private double gauge(String name) {
    return registry.get(name).tag("app", "test").tag("server", "metered").gauge().value();
  }

  private double counter(String name) {
    return registry.get(name).tag("app", "test").tag("server", "metered").functionCounter()
        .count();
  }

  @Test
  void gaugesAndCountersFollowTheLiveServer() throws Exception {
    assertThat(gauge("keel.server.sessions")).isZero();
    try (McpClient client = legacyClient()) {
      assertThat(gauge("keel.server.sessions")).isEqualTo(1);
      assertThat(gauge("keel.server.owner_bindings")).isEqualTo(1);
      await().atMost(Duration.ofSeconds(10))
          .until(() -> gauge("keel.server.listening_streams") == 1);

      // the table is full: a second session is refused and counted
      assertThatThrownBy(this::legacyClient).isInstanceOf(RuntimeException.class);
      assertThat(counter("keel.server.sessions.refused")).isEqualTo(1);

      CompletableFuture<CallToolResult> blocked = CompletableFuture.supplyAsync(
          () -> client.callTool("block", McpJson.object()));
      assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(gauge("keel.server.requests.in_flight")).isEqualTo(1);
      // the one slot is taken: the next call is refused before it starts
      assertThatThrownBy(() -> client.callTool("block", McpJson.object()))
          .isInstanceOf(RuntimeException.class);
      assertThat(counter("keel.server.requests.refused")).isEqualTo(1);

      release.countDown();
      assertThat(blocked.get(10, TimeUnit.SECONDS).isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(gauge("keel.server.requests.in_flight")).isZero();
      assertThat(registry.get(KeelMetrics.SERVER_DURATION).tag("app", "test")
          .tag("gen_ai.tool.name", "block").tag("outcome", "ok").timer().count()).isEqualTo(1);
    }
    // the client's close ends its session (DELETE)
    await().atMost(Duration.ofSeconds(10)).until(() -> gauge("keel.server.sessions") == 0);
    assertThat(counter("keel.server.cancellations")).isZero();
    assertThat(counter("keel.server.sessions.evicted")).isZero();
  }
}
