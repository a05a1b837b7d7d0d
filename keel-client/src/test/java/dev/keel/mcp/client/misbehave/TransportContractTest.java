package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the client tells its transport, and what a transport must do whoever calls it: the era
 * probe leaves nothing on the legacy handshake, the session's end reaches the server from an
 * interrupted thread, and a transport written outside Keel gets the negotiated version and the
 * listening stream through the {@link ClientTransport} interface alone.
 */
class TransportContractTest {

  private final FakeMcpServer server;

  TransportContractTest() throws Exception {
    server = FakeMcpServer.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void theFallbackInitializeAfterTheProbeCarriesNoProtocolVersionHeader() {
    // The fake server refuses server/discover with 400 (no session): a definite rejection.
    try (McpClient client = McpClient.builder(Clients.http(server.endpoint()).build())
        .era(Era.AUTO).connectTimeout(Duration.ofSeconds(10)).connect()) {
      assertThat(client.era()).isEqualTo(Era.LEGACY);
      client.listTools();
      FakeMcpServer.Seen probe = server.seen("server/discover").get(0);
      assertThat(probe.protocolVersion()).isEqualTo("2026-07-28");
      FakeMcpServer.Seen initialize = server.seen("initialize").get(0);
      assertThat(initialize.protocolVersion()).as("initialize starts clean").isNull();
      assertThat(server.seen("notifications/initialized").get(0).protocolVersion())
          .isEqualTo("2025-11-25");
      assertThat(server.seen("tools/list").get(0).protocolVersion()).isEqualTo("2025-11-25");
    }
    FakeMcpServer.Seen delete = server.seen().stream().filter(s -> s.verb().equals("DELETE"))
        .findFirst().orElseThrow();
    assertThat(delete.protocolVersion()).isEqualTo("2025-11-25");
  }

  @Test
  void closingOnAnInterruptedThreadStillEndsTheSessionAndKeepsTheInterrupt() {
    McpClient client = Clients.legacy(server);
    String session = client.transport().sessionId();
    Thread.currentThread().interrupt();
    try {
      client.close();
      assertThat(Thread.currentThread().isInterrupted()).as("the interrupt is restored").isTrue();
    } finally {
      Thread.interrupted();
    }
    assertThat(server.seen()).anySatisfy(s -> {
      assertThat(s.verb()).isEqualTo("DELETE");
      assertThat(s.session()).isEqualTo(session);
    });
  }

  @Test
  void aTransportWrittenOutsideKeelGetsTheVersionAndTheListeningStream() {
    Recording transport = new Recording(Clients.http(server.endpoint()).build());
    try (McpClient client = McpClient.builder(transport).era(Era.LEGACY)
        .connectTimeout(Duration.ofSeconds(10)).connect()) {
      assertThat(client.era()).isEqualTo(Era.LEGACY);
      assertThat(transport.told).containsExactly("sessionStarted 2025-11-25",
          "openListeningStream");
      await().atMost(Duration.ofSeconds(10)).until(() -> server.seen().stream()
          .anyMatch(s -> s.verb().equals("GET")));
    }
  }

  /**
   * A transport of the test's own, not a Keel class: it delegates the wire to an HTTP transport
   * and records what the client tells it.
   */
  private static final class Recording implements ClientTransport {
    private final StreamableHttpTransport wire;
    final List<String> told = new CopyOnWriteArrayList<>();

    Recording(StreamableHttpTransport wire) {
      this.wire = wire;
    }

    @Override
    public Capabilities capabilities() {
      return wire.capabilities();
    }

    @Override
    public void sessionStarted(String protocolVersion) {
      told.add("sessionStarted " + protocolVersion);
      wire.sessionStarted(protocolVersion);
    }

    @Override
    public void openListeningStream() {
      told.add("openListeningStream");
      wire.openListeningStream();
    }

    @Override
    public void start(Receiver receiver) {
      wire.start(receiver);
    }

    @Override
    public Exchange send(JsonRpcMessage message, SendOptions options) {
      return wire.send(message, options);
    }

    @Override
    public long sessionEpoch() {
      return wire.sessionEpoch();
    }

    @Override
    public String sessionId() {
      return wire.sessionId();
    }

    @Override
    public void close() {
      wire.close();
    }
  }
}
