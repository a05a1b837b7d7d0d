package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.SessionChangedException;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.misbehave.FakeMcpServer.Seen;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.schema.TextContent;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Another thread's 404 moves the session epoch between the moment a request reads it and the
 * moment the transport writes: the write is refused with nothing sent. A request the caller did
 * not pin belongs to whichever session is current, so it goes out in the new one; a pinned one
 * is refused (the CI run of SessionPinsTest saw the first case surface as an error).
 */
class EpochRaceTest {

  private FakeMcpServer server;

  @BeforeEach
  void start() throws Exception {
    server = FakeMcpServer.start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void inv48_anUnpinnedRequestRefusedBeforeItsWriteGoesOutInTheCurrentSession() {
    Racing transport = new Racing(Clients.http(server.endpoint()).build());
    try (McpClient client = connect(transport)) {
      client.listTools();
      transport.staleOnce.set(true);
      // tools/call is not idempotent: it may still go out, since nothing was written
      assertThat(client.callTool("echo", args("x")).content()).first()
          .isInstanceOfSatisfying(TextContent.class, t -> assertThat(t.text()).isEqualTo("ok"));
      assertThat(transport.staleOnce).isFalse();
      assertThat(server.seen("tools/call")).extracting(Seen::session).containsExactly("session-1");
    }
  }

  @Test
  void inv48_aPinnedRequestRefusedBeforeItsWriteStaysRefused() {
    StreamableHttpTransport transport = Clients.http(server.endpoint()).build();
    try (McpClient client = connect(transport)) {
      client.listTools();
      long epoch = transport.sessionEpoch();
      assertThatThrownBy(() -> transport.pinnedToSession(epoch - 1,
          () -> client.callTool("echo", args("x"))))
          .isInstanceOf(SessionChangedException.class);
      assertThat(server.seen("tools/call")).isEmpty();
    }
  }

  private static ObjectNode args(String text) {
    return McpJson.object().put("text", text);
  }

  private static McpClient connect(ClientTransport transport) {
    return McpClient.builder(transport).era(Era.LEGACY)
        .connectTimeout(Duration.ofSeconds(10)).requestTimeout(Duration.ofSeconds(20)).connect();
  }

  /**
   * Forwards to a real transport (pins included, so they are keyed by the real one); when armed,
   * reports the epoch one session too old once.
   */
  private static final class Racing implements ClientTransport {
    final AtomicBoolean staleOnce = new AtomicBoolean();
    private final StreamableHttpTransport real;

    Racing(StreamableHttpTransport real) {
      this.real = real;
    }

    @Override
    public void start(Receiver receiver) {
      real.start(receiver);
    }

    @Override
    public Exchange send(JsonRpcMessage message, SendOptions options) {
      return real.send(message, options);
    }

    @Override
    public long sessionEpoch() {
      long epoch = real.sessionEpoch();
      return staleOnce.compareAndSet(true, false) ? epoch - 1 : epoch;
    }

    @Override
    public String sessionId() {
      return real.sessionId();
    }

    @Override
    public void close() {
      real.close();
    }

    @Override
    public Capabilities capabilities() {
      return real.capabilities();
    }

    @Override
    public void sessionStarted(String protocolVersion) {
      real.sessionStarted(protocolVersion);
    }

    @Override
    public void openListeningStream() {
      real.openListeningStream();
    }

    @Override
    public <T> T pinnedToSession(long epoch, Supplier<T> work) {
      return real.pinnedToSession(epoch, work);
    }

    @Override
    public <T> T guardedWrites(Runnable guard, Supplier<T> work) {
      return real.guardedWrites(guard, work);
    }

    @Override
    public <T> T unpinnedSession(Supplier<T> work) {
      return real.unpinnedSession(work);
    }
  }
}
