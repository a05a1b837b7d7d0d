package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The server's bounds over real HTTP (SPEC §3.2; seed invariant 29): in-flight requests,
 * listening streams, sessions in total and per principal, and idle eviction that never takes a
 * busy session or one whose listening stream is alive. Each test runs its own server.
 */
class LimitsTest {

  static final String ALICE = "alice-secret";
  static final String BOB = "bob-secret";

  final Blocker block = new Blocker(false);
  McpServer server;
  McpHttpServer http;
  Peer peer;

  void start(UnaryOperator<McpServer.Builder> options, Consumer<McpServlet.Builder> servlet) {
    server = options.apply(McpServer.builder().tool(Tool.builder("block").build(), block))
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> {
          b.authenticator(Authenticator.bearerTokens(Map.of(ALICE, "alice", BOB, "bob")));
          servlet.accept(b);
        })
        .start();
    peer = new Peer(http.port());
  }

  @AfterEach
  void stop() {
    block.release.countDown();
    if (http != null) {
      http.close();
    }
    if (server != null) {
      server.close();
    }
  }

  static void assertBusy(RawHttp.Response r) {
    assertThat(r.status()).isEqualTo(503);
    assertThat(Peer.errorCode(r)).isEqualTo(-32000);
    assertThat(r.header("retry-after")).isNotBlank();
    assertThat(r.header("content-type")).startsWith("application/json");
  }

  @Test
  void inv29_inFlightLimitAnswers503BeforeStartingAThread() throws Exception {
    start(b -> b.maxInFlightRequests(1), b -> { });
    String session = peer.initialize(ALICE);
    try (SseClient running = peer.postStream(ALICE, session, Peer.call(1, "block"))) {
      assertThat(block.awaitStarted()).isTrue();

      RawHttp.Response refused = peer.post(ALICE, session, Peer.call(2, "block"));
      assertBusy(refused);
      assertThat(Peer.json(refused.body()).get("id").asInt()).isEqualTo(2);
      // The handler was not entered a second time and nothing else runs.
      assertThat(block.entries).hasValue(1);
      assertThat(server.metrics().inFlightRequests()).isEqualTo(1);
      assertThat(server.metrics().refusedRequests()).isEqualTo(1);

      // A notification takes no slot: the saturated client can still cancel.
      assertThat(peer.post(ALICE, session, Peer.cancel(1)).status()).isEqualTo(202);
      assertThat(block.awaitInterrupted(5000)).isTrue();
      await().atMost(Duration.ofSeconds(5))
          .until(() -> server.metrics().inFlightRequests() == 0);
    }
    // The freed slot admits the next call.
    block.reset();
    try (SseClient next = peer.postStream(ALICE, session, Peer.call(3, "block"))) {
      assertThat(block.awaitStarted()).isTrue();
      assertThat(block.entries).hasValue(1);
      block.release.countDown();
      assertThat(Peer.text(Peer.response(next, 5000))).isEqualTo("released");
    }
  }

  @Test
  void listeningStreamsPastTheCapAreRefusedWith503() throws IOException {
    start(b -> b, b -> b.maxListeningStreams(1).keepAlive(Duration.ofMillis(100)));
    String alice = peer.initialize(ALICE);
    String bob = peer.initialize(BOB);
    try (SseClient first = peer.get(ALICE, alice)) {
      assertThat(first.head().status()).isEqualTo(200);
      first.nextWithin(5000);

      RawHttp.Response refused = peer.getAnswer(BOB, bob);
      assertBusy(refused);
      // The open stream is untouched.
      Peer.notifyWhenAttached(server, alice, "notifications/custom", null);
      assertThat(Peer.nextMessage(first, 5000).get("method").asString())
          .isEqualTo("notifications/custom");
      assertThat(server.metrics().listeningStreams()).isEqualTo(1);

      // Once alice's stream is gone, bob gets one.
      assertThat(peer.delete(ALICE, alice).status()).isEqualTo(204);
      try (SseClient second = peer.get(BOB, bob)) {
        assertThat(second.head().status()).isEqualTo(200);
      }
    }
  }

  @Test
  void fullSessionTableRefusesNewSessionsWith503AndLeavesTheOthersAlone() throws IOException {
    start(b -> b.maxSessions(2), b -> { });
    String alice = peer.initialize(ALICE);
    String bob = peer.initialize(BOB);

    RawHttp.Response third = peer.post(ALICE, null, Peer.initializeBody(Peer.LATEST, "{}"));
    assertBusy(third);
    assertThat(third.header("mcp-session-id")).isNull();
    assertThat(Peer.json(third.body()).get("error").get("message").asString())
        .isEqualTo("Too many sessions");
    assertBusy(peer.post(BOB, null, Peer.initializeBody(Peer.LATEST, "{}")));

    assertThat(peer.ping(ALICE, alice)).isEqualTo(200);
    assertThat(peer.ping(BOB, bob)).isEqualTo(200);
    assertThat(server.metrics().sessions()).isEqualTo(2);
    assertThat(server.metrics().refusedSessions()).isEqualTo(2);
    assertThat(server.metrics().evictions()).isZero();

    // A freed place is taken again.
    assertThat(peer.delete(ALICE, alice).status()).isEqualTo(204);
    assertThat(peer.initialize(BOB)).isNotEqualTo(bob);
    assertThat(server.metrics().sessions()).isEqualTo(2);
  }

  @Test
  void perPrincipalLimitRefusesOnlyThatPrincipal() throws IOException {
    start(b -> b.maxSessionsPerPrincipal(1), b -> { });
    String alice = peer.initialize(ALICE);

    assertBusy(peer.post(ALICE, null, Peer.initializeBody(Peer.LATEST, "{}")));
    String bob = peer.initialize(BOB);
    assertThat(bob).isNotEqualTo(alice);
    assertThat(peer.ping(ALICE, alice)).isEqualTo(200);
    assertThat(server.metrics().sessions()).isEqualTo(2);
    assertThat(server.metrics().refusedSessions()).isEqualTo(1);

    assertThat(peer.delete(ALICE, alice).status()).isEqualTo(204);
    assertThat(peer.initialize(ALICE)).isNotEqualTo(alice);
  }

  @Test
  void idleSessionIsEvictedAndThenAnswers404() throws IOException {
    start(b -> b.sessionIdleTimeout(Duration.ofMillis(300)), b -> { });
    String session = peer.initialize(ALICE);
    assertThat(peer.ping(ALICE, session)).isEqualTo(200);
    assertThat(server.metrics().sessions()).isEqualTo(1);

    // Not at once (the ping above was activity), but soon after the idle timeout.
    await().atLeast(Duration.ofMillis(200)).atMost(Duration.ofSeconds(3))
        .pollInterval(Duration.ofMillis(25))
        .until(() -> server.metrics().evictions() == 1);
    assertThat(server.metrics().sessions()).isZero();
    assertThat(peer.ping(ALICE, session)).isEqualTo(404);
    assertThat(peer.getAnswer(ALICE, session).status()).isEqualTo(404);
    assertThat(peer.delete(ALICE, session).status()).isEqualTo(404);
  }

  @Test
  void sessionWithARunningToolIsNotEvictedWhileItRuns() throws Exception {
    start(b -> b.sessionIdleTimeout(Duration.ofMillis(300)), b -> b.keepAlive(
        Duration.ofMillis(100)));
    String session = peer.initialize(ALICE);
    try (SseClient running = peer.postStream(ALICE, session, Peer.call(1, "block"))) {
      assertThat(block.awaitStarted()).isTrue();
      // Over three idle timeouts with no request from the client: the busy session stays.
      await().during(Duration.ofMillis(1000)).atMost(Duration.ofSeconds(3))
          .until(() -> server.metrics().sessions() == 1 && server.metrics().evictions() == 0);
      assertThat(block.cancelReason.get()).isNull();

      block.release.countDown();
      JsonNode response = Peer.response(running, 5000);
      assertThat(Peer.text(response)).isEqualTo("released");
    }
    // Idle once the tool finished: evicted like any other.
    await().atMost(Duration.ofSeconds(3)).until(() -> server.metrics().evictions() == 1);
    assertThat(server.metrics().sessions()).isZero();
    assertThat(peer.ping(ALICE, session)).isEqualTo(404);
  }

  @Test
  void sessionWhoseListeningStreamTakesKeepAlivesIsNotEvicted() throws IOException {
    // Keep-alives every 100 ms against a 500 ms idle timeout: a margin for a loaded machine.
    start(b -> b.sessionIdleTimeout(Duration.ofMillis(500)), b -> b.keepAlive(
        Duration.ofMillis(100)));
    String session = peer.initialize(ALICE);
    SseClient listening = peer.get(ALICE, session);
    try {
      assertThat(listening.head().status()).isEqualTo(200);
      listening.nextWithin(5000);
      Peer.notifyWhenAttached(server, session, "notifications/custom", null);
      Peer.nextMessage(listening, 5000);

      await().during(Duration.ofMillis(1200)).atMost(Duration.ofSeconds(3))
          .until(() -> server.metrics().sessions() == 1 && server.metrics().evictions() == 0);
      assertThat(server.notify(session, "notifications/custom", null)).isTrue();
      assertThat(Peer.nextMessage(listening, 5000).get("method").asString())
          .isEqualTo("notifications/custom");
    } finally {
      listening.abort();
    }
    // With the stream dead, keep-alives stop proving the peer alive: the session goes idle.
    await().atMost(Duration.ofSeconds(5)).until(() -> server.metrics().evictions() == 1);
    assertThat(server.metrics().sessions()).isZero();
    assertThat(server.metrics().listeningStreams()).isZero();
    assertThat(peer.ping(ALICE, session)).isEqualTo(404);
  }
}
