package dev.keel.mcp.client.misbehave;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import java.net.URI;
import java.time.Duration;
import java.util.function.UnaryOperator;

/** Clients for the misbehaving servers: legacy era, short but generous timeouts. */
final class Clients {

  private Clients() {}

  /** Returns a transport builder for {@code endpoint} with the listening stream on. */
  static StreamableHttpTransport.Builder http(URI endpoint) {
    return StreamableHttpTransport.builder(endpoint).connectTimeout(Duration.ofSeconds(5));
  }

  /** Connects a legacy-era client to {@code server}. */
  static McpClient legacy(FakeMcpServer server) {
    return legacy(server.endpoint(), UnaryOperator.identity());
  }

  /** Connects a legacy-era client, letting the test adjust the transport. */
  static McpClient legacy(URI endpoint, UnaryOperator<StreamableHttpTransport.Builder> adjust) {
    return McpClient.builder(adjust.apply(http(endpoint)).build())
        .era(Era.LEGACY)
        .connectTimeout(Duration.ofSeconds(10))
        .requestTimeout(Duration.ofSeconds(20))
        .connect();
  }
}
