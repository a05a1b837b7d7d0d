package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.http.McpHttpServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Keel client keeps its connection to a Keel server from call to call, in both eras, when
 * the answers come on event streams. A call that reports progress is answered on a stream the
 * server ends right after the answer; a client that closed the stream at the answer, before that
 * end, made the JDK drop the connection, so every such call paid for a new one.
 */
class ClientConnectionReuseTest {

  private static final int CALLS = 10;
  private static McpHttpServer http;

  @BeforeAll
  static void start() {
    http = McpHttpServer.builder(FixtureServer.create()).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void callsOneAfterAnotherShareOneConnection(Era era) {
    try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(http.endpoint())
        .build()).era(era).requestTimeout(Duration.ofSeconds(30)).connect()) {
      // the first call may still open one (the handshake's connection may be the listening
      // stream's now); from then on each call finds the previous one's connection in the pool
      streamedCall(client);
      long before = http.acceptedConnections();
      for (int i = 0; i < CALLS; i++) {
        streamedCall(client);
      }
      assertThat(http.acceptedConnections() - before)
          .as("connections opened for %d calls in a row", CALLS).isLessThanOrEqualTo(1);
    }
  }

  /** A call whose answer comes on an event stream: it reports progress before it. */
  private static void streamedCall(McpClient client) {
    List<Double> reports = new CopyOnWriteArrayList<>();
    TextContent answer = (TextContent) client.callTool("test_tool_with_progress", null,
        CallOptions.defaults().withProgress((p, total, message) -> reports.add(p)))
        .content().get(0);
    assertThat(answer.text()).startsWith("Progress reported");
    assertThat(reports).as("progress before the answer").containsExactly(0.0, 50.0, 100.0);
  }
}
