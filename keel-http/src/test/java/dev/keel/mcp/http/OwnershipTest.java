package dev.keel.mcp.http;

import static dev.keel.mcp.http.Peer.UNKNOWN_SESSION;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Session ownership over real HTTP (SPEC §3.3; seed invariants 1, 2, 5, 6, 7, 10 to 16): every
 * request naming a session must come from the principal that created it, and anyone else is
 * answered exactly as if the session did not exist, without changing anything.
 */
class OwnershipTest {

  static final String ALICE = "alice-secret";
  static final String BOB = "bob-secret";
  static final Map<String, String> KEYS = Map.of(ALICE, "alice", BOB, "bob");
  static final String WATCHED = "mem://watched";

  static final Blocker block = new Blocker(false);
  static volatile CountDownLatch askEnded = new CountDownLatch(1);
  static final AtomicReference<Throwable> askFailure = new AtomicReference<>();
  static final AtomicBoolean askAnswered = new AtomicBoolean();

  static McpServer server;
  static McpHttpServer http;
  static Peer peer;
  final List<AutoCloseable> extra = new ArrayList<>();

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("block").build(), block)
        .tool(Tool.builder("whoami").build(),
            (ctx, args) -> CallToolResult.text(ctx.principal().fingerprint()))
        .tool(Tool.builder("logs").build(), (ctx, args) -> {
          ctx.log(LoggingLevel.INFO, "working");
          return CallToolResult.text("logged");
        })
        .tool(Tool.builder("ask").build(), (ctx, args) -> {
          try {
            ctx.elicit(ElicitRequest.form("Your name?", nameSchema()));
            askAnswered.set(true);
            return CallToolResult.text("answered");
          } catch (RuntimeException e) {
            askFailure.set(e);
            throw e;
          } finally {
            askEnded.countDown();
          }
        })
        .resource(Resource.of(WATCHED, "watched", null, "text/plain"),
            (ctx, uri) -> ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "v")))
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(Authenticator.bearerTokens(KEYS))
            .keepAlive(Duration.ofMillis(100)))
        .start();
    peer = new Peer(http.port());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @BeforeEach
  void reset() {
    block.reset();
    askEnded = new CountDownLatch(1);
    askFailure.set(null);
    askAnswered.set(false);
  }

  @AfterEach
  void stopExtraServers() throws Exception {
    block.release.countDown();
    for (AutoCloseable c : extra) {
      c.close();
    }
  }

  static ObjectNode nameSchema() {
    ObjectNode schema = McpJson.object().put("type", "object");
    schema.putObject("properties").putObject("name").put("type", "string");
    return schema;
  }

  /** Starts another server; it is stopped after the test. */
  McpHttpServer startExtra(McpServer s, java.util.function.Consumer<McpServlet.Builder> servlet) {
    extra.add(s);
    McpHttpServer h = McpHttpServer.builder(s).port(0).servlet(servlet).start();
    extra.add(0, h);
    return h;
  }

  static void assertLooksUnknown(RawHttp.Response foreign, RawHttp.Response unknown) {
    assertThat(foreign.status()).isEqualTo(404);
    assertThat(unknown.status()).isEqualTo(404);
    assertThat(foreign.body()).isEqualTo(unknown.body());
    assertThat(foreign.header("content-type")).isEqualTo(unknown.header("content-type"));
    assertThat(foreign.header("content-length")).isEqualTo(unknown.header("content-length"));
    assertThat(Peer.errorCode(foreign)).isEqualTo(-32600);
  }

  @Test
  void spec33_postGetAndDeleteWithAnotherPrincipalsSessionIdAreAnsweredLikeAnUnknownIdAndChangeNothing()
      throws Exception {
    String alice = peer.initialize(ALICE);
    try (SseClient listening = peer.get(ALICE, alice);
        SseClient running = peer.postStream(ALICE, alice, Peer.call(21, "block"))) {
      assertThat(listening.head().status()).isEqualTo(200);
      assertThat(listening.nextWithin(5000).data()).as("priming event").isEmpty();
      Peer.notifyWhenAttached(server, alice, "notifications/attached", null);
      Peer.nextMessage(listening, 5000);
      assertThat(block.awaitStarted()).isTrue();

      String ping = Peer.request(5, "ping", null);
      RawHttp.Response foreignPost = peer.post(BOB, alice, ping);
      RawHttp.Response unknownPost = peer.post(BOB, UNKNOWN_SESSION, ping);
      assertLooksUnknown(foreignPost, unknownPost);
      RawHttp.Response foreignCall = peer.post(BOB, alice, Peer.call(6, "whoami"));
      assertLooksUnknown(foreignCall, unknownPost);
      RawHttp.Response foreignGet = peer.getAnswer(BOB, alice);
      RawHttp.Response unknownGet = peer.getAnswer(BOB, UNKNOWN_SESSION);
      assertLooksUnknown(foreignGet, unknownGet);
      RawHttp.Response foreignDelete = peer.delete(BOB, alice);
      RawHttp.Response unknownDelete = peer.delete(BOB, UNKNOWN_SESSION);
      assertLooksUnknown(foreignDelete, unknownDelete);
      // One answer for every method: nothing tells the methods' paths apart either.
      assertThat(foreignGet.body()).isEqualTo(foreignPost.body()).isEqualTo(foreignDelete.body());
      assertThat(foreignPost.body()).doesNotContain(alice);

      // Nothing changed: the tool is not cancelled, the stream is open, the session answers.
      assertThat(block.awaitInterrupted(300)).isFalse();
      assertThat(block.cancelReason.get()).isNull();
      assertThat(server.notify(alice, "notifications/custom", McpJson.object().put("k", 1)))
          .isTrue();
      JsonNode custom = Peer.nextMessage(listening, 5000);
      assertThat(custom.get("method").asString()).isEqualTo("notifications/custom");
      assertThat(peer.ping(ALICE, alice)).isEqualTo(200);
      block.release.countDown();
      JsonNode response = Peer.response(running, 5000);
      assertThat(response.get("id").asInt()).isEqualTo(21);
      assertThat(Peer.text(response)).isEqualTo("released");
    } finally {
      peer.delete(ALICE, alice);
    }
  }

  @Test
  void inv10_reinitializeWithAnotherPrincipalsSessionIdDoesNotTakeItOver() throws IOException {
    String alice = peer.initialize(ALICE);
    RawHttp.Response hijack = peer.post(BOB, alice, Peer.initializeBody(Peer.LATEST, "{}"));
    RawHttp.Response unknown = peer.post(BOB, UNKNOWN_SESSION,
        Peer.initializeBody(Peer.LATEST, "{}"));
    assertLooksUnknown(hijack, unknown);
    assertThat(hijack.header("mcp-session-id")).isNull();

    // The binding stayed with alice: bob still cannot use it, alice still can.
    assertThat(peer.ping(BOB, alice)).isEqualTo(404);
    assertThat(peer.ping(ALICE, alice)).isEqualTo(200);
    // Her own re-initialize refreshes the same session.
    RawHttp.Response refresh = peer.post(ALICE, alice, Peer.initializeBody(Peer.LATEST, "{}"));
    assertThat(refresh.status()).isEqualTo(200);
    assertThat(refresh.header("mcp-session-id")).isEqualTo(alice);
    assertThat(peer.ping(BOB, alice)).isEqualTo(404);
    assertThat(peer.delete(ALICE, alice).status()).isEqualTo(204);
  }

  @Test
  void inv11_deleteNeedsTheOwner() throws IOException {
    String alice = peer.initialize(ALICE);
    assertThat(peer.delete(null, alice).status()).as("unauthenticated").isEqualTo(401);
    assertThat(peer.delete("wrong-secret", alice).status()).isEqualTo(401);
    RawHttp.Response bob = peer.delete(BOB, alice);
    assertThat(bob.status()).isEqualTo(404);
    assertThat(Peer.errorCode(bob)).isEqualTo(-32600);
    assertThat(peer.ping(ALICE, alice)).as("still alive after the refused deletes").isEqualTo(200);

    RawHttp.Response owner = peer.delete(ALICE, alice);
    assertThat(owner.status()).isEqualTo(204);
    assertThat(owner.body()).isEmpty();
    assertThat(peer.ping(ALICE, alice)).isEqualTo(404);
  }

  @Test
  void inv5_listeningStreamOfAnotherPrincipalsSessionIsRefused() throws IOException {
    String alice = peer.initialize(ALICE);
    try (SseClient listening = peer.get(ALICE, alice)) {
      assertThat(listening.head().status()).isEqualTo(200);
      listening.nextWithin(5000);
      Peer.notifyWhenAttached(server, alice, "notifications/attached", null);
      Peer.nextMessage(listening, 5000);
      // Keel answers 404, not the seed's 403: a 403 would confirm the session exists.
      RawHttp.Response bob = peer.getAnswer(BOB, alice);
      assertLooksUnknown(bob, peer.getAnswer(BOB, UNKNOWN_SESSION));
      // Bob's attempt neither replaced nor closed alice's stream.
      assertThat(server.notify(alice, "notifications/custom", null)).isTrue();
      assertThat(Peer.nextMessage(listening, 5000).get("method").asString())
          .isEqualTo("notifications/custom");
    } finally {
      peer.delete(ALICE, alice);
    }
  }

  @Test
  void inv15_inv16_cancellationFromAnotherPrincipalOrAnotherSessionIsASilentNoOp()
      throws Exception {
    String alice = peer.initialize(ALICE);
    String aliceOther = peer.initialize(ALICE);
    String bob = peer.initialize(BOB);
    try (SseClient running = peer.postStream(ALICE, alice, Peer.call(41, "block"))) {
      assertThat(block.awaitStarted()).isTrue();

      RawHttp.Response fromBob = peer.post(BOB, bob, Peer.cancel(41));
      assertThat(fromBob.status()).isEqualTo(202);
      assertThat(fromBob.body()).isEmpty();
      RawHttp.Response fromAlicesOtherSession = peer.post(ALICE, aliceOther, Peer.cancel(41));
      assertThat(fromAlicesOtherSession.status()).isEqualTo(202);
      assertThat(fromAlicesOtherSession.body()).isEmpty();
      // Naming alice's session does not help bob: that is a foreign session (404).
      assertThat(peer.post(BOB, alice, Peer.cancel(41)).status()).isEqualTo(404);
      // Without any session id a request is refused outright over HTTP (SPEC §3.2).
      assertThat(peer.post(ALICE, null, Peer.cancel(41)).status()).isEqualTo(400);

      assertThat(block.awaitInterrupted(400)).as("tool interrupted by a foreign cancel")
          .isFalse();
      assertThat(block.cancelReason.get()).isNull();

      // Control: the same notification in the request's own session does cancel it.
      RawHttp.Response own = peer.post(ALICE, alice, Peer.cancel(41));
      assertThat(own.status()).isEqualTo(202);
      assertThat(block.awaitInterrupted(5000)).isTrue();
      await().atMost(Duration.ofSeconds(5)).until(() -> block.cancelReason.get() != null);
      assertThat(block.cancelReason.get()).contains("test");
    } finally {
      peer.delete(ALICE, alice);
      peer.delete(ALICE, aliceOther);
      peer.delete(BOB, bob);
    }
  }

  @Test
  void inv1_sessionIdAppearsOnlyOnTheInitializeResponse() throws IOException {
    RawHttp.Response init = peer.post(ALICE, null, Peer.initializeBody(Peer.LATEST, "{}"));
    assertThat(init.status()).isEqualTo(200);
    String session = init.header("mcp-session-id");
    assertThat(session).isNotBlank();

    RawHttp.Response initialized = peer.post(ALICE, session,
        Peer.notification("notifications/initialized", null));
    assertThat(initialized.status()).isEqualTo(202);
    assertThat(initialized.header("mcp-session-id")).isNull();

    RawHttp.Response ping = peer.post(ALICE, session, Peer.request(2, "ping", null));
    assertThat(ping.status()).isEqualTo(200);
    assertThat(ping.header("mcp-session-id")).isNull();

    RawHttp.Response jsonCall = peer.post(ALICE, session, Peer.call(3, "whoami"));
    assertThat(jsonCall.status()).isEqualTo(200);
    assertThat(jsonCall.header("content-type")).startsWith("application/json");
    assertThat(jsonCall.header("mcp-session-id")).isNull();

    try (SseClient sseCall = peer.postStream(ALICE, session, Peer.call(4, "logs"))) {
      assertThat(sseCall.head().header("content-type")).startsWith("text/event-stream");
      assertThat(sseCall.head().header("mcp-session-id")).isNull();
      assertThat(Peer.text(Peer.response(sseCall, 5000))).isEqualTo("logged");
    }
    try (SseClient get = peer.get(ALICE, session)) {
      assertThat(get.head().status()).isEqualTo(200);
      assertThat(get.head().header("mcp-session-id")).isNull();
    }
    RawHttp.Response cancelled = peer.post(ALICE, session, Peer.cancel(77));
    assertThat(cancelled.status()).isEqualTo(202);
    assertThat(cancelled.header("mcp-session-id")).isNull();

    RawHttp.Response delete = peer.delete(ALICE, session);
    assertThat(delete.status()).isEqualTo(204);
    assertThat(delete.header("mcp-session-id")).isNull();
  }

  @Test
  void inv2_clientChosenSessionIdOnInitializeIsNeverAdopted() throws IOException {
    String madeUp = "client-chosen-session-id-0123456789abcdefXYZ";
    int sessionsBefore = server.metrics().sessions();
    int bindingsBefore = server.metrics().ownerBindings();
    RawHttp.Response init = peer.post(ALICE, madeUp, Peer.initializeBody(Peer.LATEST, "{}"));
    assertThat(init.status()).isEqualTo(404);
    assertThat(Peer.errorCode(init)).isEqualTo(-32600);
    assertThat(init.header("mcp-session-id")).isNull();

    // No session with that id exists afterwards, for any method.
    assertThat(server.metrics().sessions()).isEqualTo(sessionsBefore);
    assertThat(server.metrics().ownerBindings()).isEqualTo(bindingsBefore);
    assertThat(peer.ping(ALICE, madeUp)).isEqualTo(404);
    assertThat(peer.getAnswer(ALICE, madeUp).status()).isEqualTo(404);
    assertThat(peer.delete(ALICE, madeUp).status()).isEqualTo(404);
    assertThat(server.notify(madeUp, "notifications/custom", null)).isFalse();
  }

  @Test
  void inv7_closingTheListeningStreamKeepsTheOwnerBinding() throws IOException {
    String alice = peer.initialize(ALICE);
    try {
      SseClient first = peer.get(ALICE, alice);
      assertThat(first.head().status()).isEqualTo(200);
      first.nextWithin(5000);
      Peer.notifyWhenAttached(server, alice, "notifications/attached", null);
      int bindings = server.metrics().ownerBindings();
      first.abort();
      // The server notices the dead stream (keep-alives every 100 ms) and detaches it.
      await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
          .until(() -> !server.notify(alice, "notifications/probe", null));

      assertThat(server.metrics().ownerBindings()).as("binding kept").isEqualTo(bindings);
      // In the gap nobody else can take the session...
      assertThat(peer.getAnswer(BOB, alice).status()).isEqualTo(404);
      // ...and its owner reattaches.
      try (SseClient again = peer.get(ALICE, alice)) {
        assertThat(again.head().status()).isEqualTo(200);
        again.nextWithin(5000);
        assertThat(peer.getAnswer(BOB, alice).status()).isEqualTo(404);
        Peer.notifyWhenAttached(server, alice, "notifications/custom", null);
        assertThat(Peer.nextMessage(again, 5000).get("method").asString())
            .isEqualTo("notifications/custom");
      }
    } finally {
      peer.delete(ALICE, alice);
    }
  }

  @Test
  void inv13_operatorResolverSeparatesPrincipalsThatShareACredential() throws IOException {
    Map<String, String> oneKey = Map.of("shared-key", "gateway");
    Peer resolved = new Peer(startExtra(McpServer.builder().build(),
        b -> b.authenticator(Authenticator.bearerTokens(oneKey))
            .fingerprintResolver((req, principal) -> req.getHeader("X-Tenant"))).port());
    String tenantA = resolved.initialize("shared-key", Peer.LATEST, "{}", "X-Tenant", "a");
    String ping = Peer.request(2, "ping", null);
    assertThat(resolved.post("shared-key", tenantA, ping, "X-Tenant", "a").status())
        .isEqualTo(200);
    RawHttp.Response asB = resolved.post("shared-key", tenantA, ping, "X-Tenant", "b");
    assertLooksUnknown(asB, resolved.post("shared-key", UNKNOWN_SESSION, ping, "X-Tenant", "b"));
    assertThat(resolved.getAnswer("shared-key", tenantA, "X-Tenant", "b").status())
        .isEqualTo(404);
    assertThat(resolved.delete("shared-key", tenantA, "X-Tenant", "b").status()).isEqualTo(404);
    // No resolved value falls back to the key's own fingerprint, which is not tenant a's.
    assertThat(resolved.post("shared-key", tenantA, ping).status()).isEqualTo(404);
    assertThat(resolved.post("shared-key", tenantA, ping, "X-Tenant", "a").status())
        .as("tenant a's session survived the others' attempts").isEqualTo(200);

    // Without a resolver, the same key is the same owner whatever the tenant header says.
    Peer plain = new Peer(startExtra(McpServer.builder().build(),
        b -> b.authenticator(Authenticator.bearerTokens(oneKey))).port());
    String session = plain.initialize("shared-key", Peer.LATEST, "{}");
    assertThat(plain.post("shared-key", session, ping, "X-Tenant", "a").status()).isEqualTo(200);
    assertThat(plain.post("shared-key", session, ping, "X-Tenant", "b").status()).isEqualTo(200);
    assertThat(plain.delete("shared-key", session, "X-Tenant", "b").status()).isEqualTo(204);
  }

  @Test
  void inv14_fingerprintOfAnApiKeyPrincipalIsStableAcrossServerInstances() throws IOException {
    // Sessions are per server, so stability is checked on the fingerprint itself. The tool
    // returns ctx.principal().fingerprint(): the transport hands the handler the same resolved
    // principal it binds sessions to and checks ownership with, so two instances that report
    // equal fingerprints for a key would bind that key's sessions to the same owner.
    List<String> alice = new ArrayList<>();
    List<String> bob = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      McpServer s = McpServer.builder().tool(Tool.builder("whoami").build(),
          (ctx, args) -> CallToolResult.text(ctx.principal().fingerprint())).build();
      // A fresh authenticator per instance, as after a restart.
      Peer p = new Peer(startExtra(s,
          b -> b.authenticator(Authenticator.bearerTokens(Map.of(ALICE, "alice", BOB, "bob"))))
          .port());
      alice.add(whoami(p, ALICE));
      bob.add(whoami(p, BOB));
    }
    alice.add(whoami(peer, ALICE));
    assertThat(alice).doesNotContainNull().containsOnly(alice.get(0));
    assertThat(bob).containsOnly(bob.get(0));
    assertThat(alice.get(0)).isNotEqualTo(bob.get(0)).doesNotContain(ALICE);

    // The operator's resolver is stable across instances too.
    List<String> tenants = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      McpServer s = McpServer.builder().tool(Tool.builder("whoami").build(),
          (ctx, args) -> CallToolResult.text(ctx.principal().fingerprint())).build();
      Peer p = new Peer(startExtra(s, b -> b.authenticator(Authenticator.bearerTokens(KEYS))
          .fingerprintResolver((req, principal) -> "tenant-7")).port());
      tenants.add(whoami(p, ALICE));
    }
    assertThat(tenants).containsOnly(tenants.get(0));
    assertThat(tenants.get(0)).isNotEqualTo(alice.get(0)).doesNotContain("tenant-7");
  }

  private static String whoami(Peer p, String bearer) throws IOException {
    String session = p.initialize(bearer);
    try {
      RawHttp.Response r = p.post(bearer, session, Peer.call(2, "whoami"));
      assertThat(r.status()).isEqualTo(200);
      return Peer.text(Peer.json(r.body()));
    } finally {
      p.delete(bearer, session);
    }
  }

  @Test
  void inv6_notificationChannelIsClaimedByTheFirstPrincipalToAttach() throws IOException {
    McpServer channels = McpServer.builder().notificationChannels(true).build();
    Peer p = new Peer(startExtra(channels,
        b -> b.authenticator(Authenticator.bearerTokens(KEYS))).port());
    byte[] random = new byte[30];
    new SecureRandom().nextBytes(random);
    String id = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    assertThat(id).hasSize(40);

    try (SseClient claimed = p.get(ALICE, id)) {
      assertThat(claimed.head().status()).isEqualTo(200);
      Peer.notifyWhenAttached(channels, id, "notifications/custom", McpJson.object().put("n", 1));
      JsonNode custom = Peer.nextMessage(claimed, 5000);
      assertThat(custom.get("method").asString()).isEqualTo("notifications/custom");
      assertThat(custom.get("params").get("n").asInt()).isEqualTo(1);
      assertThat(custom.has("id")).isFalse();

      RawHttp.Response bob = p.getAnswer(BOB, id);
      assertThat(bob.status()).isEqualTo(404);
      assertThat(Peer.errorCode(bob)).isEqualTo(-32600);
      assertThat(p.ping(BOB, id)).isEqualTo(404);
      assertThat(p.delete(BOB, id).status()).isEqualTo(404);
      // Bob's attempts left alice's stream in place.
      assertThat(channels.notify(id, "notifications/custom", McpJson.object().put("n", 2)))
          .isTrue();
      assertThat(Peer.nextMessage(claimed, 5000).get("params").get("n").asInt()).isEqualTo(2);
    }
    // A low-entropy id is never claimed.
    RawHttp.Response shortId = p.getAnswer(ALICE, "short-channel-id");
    assertThat(shortId.status()).isEqualTo(404);
    assertThat(shortId.body()).isEqualTo(p.getAnswer(BOB, id).body());
    assertThat(channels.notify("short-channel-id", "notifications/custom", null)).isFalse();

    // With channels off (the default), the same kind of id is just an unknown session.
    byte[] other = new byte[30];
    new SecureRandom().nextBytes(other);
    String otherId = Base64.getUrlEncoder().withoutPadding().encodeToString(other);
    assertThat(peer.getAnswer(ALICE, otherId).status()).isEqualTo(404);
    assertThat(server.notify(otherId, "notifications/custom", null)).isFalse();
  }

  @Test
  void inv12_deleteEndsEverythingOfTheSession() throws Exception {
    String alice = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    String bob = peer.initialize(BOB);
    try (SseClient listening = peer.get(ALICE, alice);
        SseClient blocking = peer.postStream(ALICE, alice, Peer.call(31, "block"));
        SseClient asking = peer.postStream(ALICE, alice, Peer.call(32, "ask"))) {
      assertThat(listening.head().status()).isEqualTo(200);
      listening.nextWithin(5000);
      RawHttp.Response subscribe = peer.post(ALICE, alice,
          Peer.request(33, "resources/subscribe", "{\"uri\":\"" + WATCHED + "\"}"));
      assertThat(subscribe.status()).isEqualTo(200);
      assertThat(Peer.json(subscribe.body()).has("result")).isTrue();
      assertThat(server.resourceUpdated(WATCHED)).as("subscribed before the DELETE").isEqualTo(1);
      assertThat(Peer.nextMessage(listening, 5000).get("method").asString())
          .isEqualTo("notifications/resources/updated");
      assertThat(block.awaitStarted()).isTrue();
      JsonNode elicitation = Peer.nextMessage(asking, 5000);
      assertThat(elicitation.get("method").asString()).isEqualTo("elicitation/create");

      int bindings = server.metrics().ownerBindings();
      RawHttp.Response delete = peer.delete(ALICE, alice);
      assertThat(delete.status()).isEqualTo(204);
      assertThat(delete.body()).isEmpty();
      assertThat(server.metrics().ownerBindings()).as("binding forgotten")
          .isEqualTo(bindings - 1);

      // The in-flight tool is cancelled and interrupted.
      assertThat(block.awaitInterrupted(5000)).isTrue();
      assertThat(block.cancelReason.get()).isNotNull();
      // The tool waiting on the user ends: its pending elicitation was aborted.
      assertThat(askEnded.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(askAnswered).isFalse();
      assertThat(askFailure.get()).isNotNull();
      // Every stream of the session ends, and the cancelled call gets no response.
      assertThat(listening.awaitEnd(3000)).isTrue();
      assertThat(blocking.awaitEnd(3000)).isTrue();
      assertThat(blocking.remaining())
          .noneMatch(e -> !e.data().isEmpty() && Peer.json(e).has("id")
              && Peer.json(e).get("id").asInt() == 31);
      assertThat(asking.awaitEnd(3000)).isTrue();
      // Subscriptions and the listener are gone.
      assertThat(server.resourceUpdated(WATCHED)).isZero();
      assertThat(server.notify(alice, "notifications/custom", null)).isFalse();
      // A late answer to the aborted elicitation finds no session.
      assertThat(peer.post(ALICE, alice, "{\"jsonrpc\":\"2.0\",\"id\":"
          + elicitation.get("id") + ",\"result\":{\"action\":\"accept\","
          + "\"content\":{\"name\":\"late\"}}}").status()).isEqualTo(404);

      // An unknown id (the deleted one) and a foreign id (bob's) are answered alike.
      RawHttp.Response unknown = peer.delete(ALICE, alice);
      RawHttp.Response foreign = peer.delete(ALICE, bob);
      assertLooksUnknown(foreign, unknown);
      assertThat(peer.ping(BOB, bob)).as("bob's session is untouched").isEqualTo(200);
    } finally {
      peer.delete(BOB, bob);
    }
  }
}
