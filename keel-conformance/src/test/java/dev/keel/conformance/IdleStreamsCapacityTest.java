package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * SPEC §2: an idle SSE stream holds no thread. 2,000 listening streams stay open against a
 * Jetty with at most 16 container threads while requests on other sessions still complete; when
 * the clients vanish, every registry and counter returns to zero.
 */
class IdleStreamsCapacityTest {

  static final int STREAMS = 2_000;

  @Test
  void twoThousandIdleStreamsOnSixteenThreadsAndEverythingReturnsToZeroAfterwards()
      throws Exception {
    McpServer server = McpServer.builder()
        .maxSessionsPerPrincipal(STREAMS + 100)
        .sessionIdleTimeout(Duration.ofSeconds(2))
        .tool(Tool.builder("echo").inputSchema("{\"type\":\"object\",\"properties\":"
            + "{\"text\":{\"type\":\"string\"}}}").build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .build();
    McpHttpServer http = McpHttpServer.builder(server).port(0).maxThreads(16)
        .servlet(b -> b.keepAlive(Duration.ofMillis(500)))
        .start();
    List<Socket> streams = new ArrayList<>();
    try {
      McpHttp client = new McpHttp(http.endpoint());
      for (int i = 0; i < STREAMS; i++) {
        streams.add(openListeningStream(http.port(), client.initialize()));
      }
      assertThat(server.metrics().listeningStreams()).isEqualTo(STREAMS);
      assertThat(http.servlet().openListeningStreams()).isEqualTo(STREAMS);

      for (int i = 0; i < 20; i++) {
        String session = client.initialize();
        HttpResponse<String> r = client.post(session,
            McpHttp.call(i, "echo", "{\"text\":\"still serving " + i + "\"}"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("still serving " + i);
      }
      assertThat(server.metrics().listeningStreams()).isEqualTo(STREAMS);
    } finally {
      for (Socket s : streams) {
        s.close();
      }
    }
    try {
      await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
          .untilAsserted(() -> {
            assertThat(server.metrics().listeningStreams()).isZero();
            assertThat(http.servlet().openListeningStreams()).isZero();
            assertThat(http.servlet().openStreams()).isZero();
            assertThat(server.metrics().sessions()).isZero();
            assertThat(server.metrics().ownerBindings()).isZero();
            assertThat(server.metrics().inFlightRequests()).isZero();
            assertThat(http.servlet().trackedSessions()).isZero();
          });
      assertThat(server.metrics().evictions()).isGreaterThanOrEqualTo(STREAMS);
    } finally {
      http.close();
      server.close();
    }
  }

  /** Opens a GET listening stream and reads up to its priming event; the socket stays open. */
  static Socket openListeningStream(int port, String session) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    socket.setSoTimeout(10_000);
    socket.getOutputStream().write(("GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port
        + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + session + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream seen = new ByteArrayOutputStream();
    while (!seen.toString(StandardCharsets.UTF_8).contains("data: \n\n")) {
      int b = in.read();
      if (b < 0) {
        throw new IOException("stream ended early: " + seen);
      }
      seen.write(b);
    }
    assertThat(seen.toString(StandardCharsets.UTF_8)).startsWith("HTTP/1.1 200");
    return socket;
  }
}
