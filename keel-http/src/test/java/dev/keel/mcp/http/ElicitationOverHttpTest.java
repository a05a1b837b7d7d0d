package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolHandler;
import dev.keel.mcp.server.ToolOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Elicitation and human approval over real HTTP (SPEC §3.6; seed invariants 33 to 36): the
 * server's request travels on the tool call's own stream, the reply is a JSON-RPC response
 * POSTed in the same session, and anything else (another session, too late, twice) is a
 * silent 202 with no effect. Approval fails closed.
 */
class ElicitationOverHttpTest {

  static final String ALICE = "alice-secret";
  static final String BOB = "bob-secret";
  static final Map<String, String> KEYS = Map.of(ALICE, "alice", BOB, "bob");

  static final AtomicInteger askEntries = new AtomicInteger();
  static final AtomicInteger guardedRuns = new AtomicInteger();

  static McpServer server;
  static McpHttpServer http;
  static Peer peer;
  /** The same tools, but the client has only 300 ms to answer. */
  static McpServer impatient;
  static McpHttpServer impatientHttp;
  static Peer impatientPeer;

  /** Asks the user for a name and greets them; a timeout is reported, not thrown. */
  static final ToolHandler ASK = (ctx, args) -> {
    askEntries.incrementAndGet();
    ObjectNode schema = McpJson.object().put("type", "object");
    schema.putObject("properties").putObject("name").put("type", "string");
    try {
      ElicitResult answer = ctx.elicit(ElicitRequest.form("Your name?", schema));
      return CallToolResult.text("hello " + answer.action().name().toLowerCase()
          + (answer.content() == null ? "" : " " + answer.content().get("name").asString()));
    } catch (RequestTimeoutException e) {
      return CallToolResult.text("timed out");
    }
  };

  static final ToolHandler GUARDED = (ctx, args) -> {
    guardedRuns.incrementAndGet();
    return CallToolResult.text("ran");
  };

  static McpServer build(Duration clientRequestTimeout) {
    return McpServer.builder()
        .clientRequestTimeout(clientRequestTimeout)
        .tool(Tool.builder("ask").build(), ASK)
        .tool(Tool.builder("guarded").build(), ToolOptions.defaults().withApproval(), GUARDED)
        .build();
  }

  @BeforeAll
  static void start() {
    server = build(Duration.ofSeconds(10));
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(Authenticator.bearerTokens(KEYS)))
        .start();
    peer = new Peer(http.port());
    impatient = build(Duration.ofMillis(300));
    impatientHttp = McpHttpServer.builder(impatient).port(0)
        .servlet(b -> b.authenticator(Authenticator.bearerTokens(KEYS)))
        .start();
    impatientPeer = new Peer(impatientHttp.port());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
    impatientHttp.close();
    impatient.close();
  }

  @BeforeEach
  void reset() {
    askEntries.set(0);
    guardedRuns.set(0);
  }

  static String reply(JsonNode elicitation, String content) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + elicitation.get("id")
        + ",\"result\":{\"action\":\"accept\",\"content\":" + content + "}}";
  }

  static String name(String value) {
    return "{\"name\":\"" + value + "\"}";
  }

  static void assertSilent(RawHttp.Response r) {
    assertThat(r.status()).isEqualTo(202);
    assertThat(r.body()).isEmpty();
  }

  /** Reads the server's elicitation request from a tool call's stream. */
  static JsonNode elicitationOn(SseClient call) throws IOException {
    assertThat(call.head().status()).isEqualTo(200);
    assertThat(call.head().header("content-type")).startsWith("text/event-stream");
    JsonNode request = Peer.nextMessage(call, 5000);
    assertThat(request.get("method").asString()).isEqualTo("elicitation/create");
    assertThat(request.has("id")).isTrue();
    return request;
  }

  @Test
  void inv33_elicitationReplyReachesOnlyItsOwnSession() throws IOException {
    String alice = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    String aliceOther = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    String bob = peer.initialize(BOB, Peer.LATEST, Peer.ELICITATION);
    try (SseClient aliceCall = peer.postStream(ALICE, alice, Peer.call(51, "ask"));
        SseClient bobCall = peer.postStream(BOB, bob, Peer.call(51, "ask"))) {
      JsonNode aliceAsk = elicitationOn(aliceCall);
      JsonNode bobAsk = elicitationOn(bobCall);
      assertThat(aliceAsk.get("params").get("message").asString()).isEqualTo("Your name?");
      // Each session counts its own requests: the ids collide, the sessions keep them apart.
      assertThat(aliceAsk.get("id")).isEqualTo(bobAsk.get("id"));

      // Replies to alice's question from anywhere but her session change nothing.
      assertSilent(peer.post(ALICE, aliceOther, reply(aliceAsk, name("other session"))));
      assertThat(peer.post(BOB, alice, reply(aliceAsk, name("mallory"))).status())
          .as("bob naming alice's session").isEqualTo(404);
      assertThat(aliceCall.nextWithin(300)).as("alice's tool still waits").isNull();

      // Bob's own reply (same id) reaches only bob's question.
      assertSilent(peer.post(BOB, bob, reply(bobAsk, name("bob"))));
      JsonNode bobResponse = Peer.response(bobCall, 5000);
      assertThat(Peer.text(bobResponse)).isEqualTo("hello accept bob");
      assertThat(aliceCall.nextWithin(300)).as("alice's tool still waits").isNull();

      assertSilent(peer.post(ALICE, alice, reply(aliceAsk, name("alice"))));
      JsonNode aliceResponse = Peer.response(aliceCall, 5000);
      assertThat(aliceResponse.get("id").asInt()).isEqualTo(51);
      assertThat(Peer.text(aliceResponse)).isEqualTo("hello accept alice");
      assertThat(askEntries).hasValue(2);
    } finally {
      peer.delete(ALICE, alice);
      peer.delete(ALICE, aliceOther);
      peer.delete(BOB, bob);
    }
  }

  @Test
  void inv34_foreignLateAndDuplicateRepliesAreSilent202s() throws IOException {
    String alice = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    String bob = peer.initialize(BOB, Peer.LATEST, Peer.ELICITATION);
    try {
      JsonNode first;
      try (SseClient call = peer.postStream(ALICE, alice, Peer.call(61, "ask"))) {
        first = elicitationOn(call);
        // Foreign: another principal's session.
        assertSilent(peer.post(BOB, bob, reply(first, name("mallory"))));
        assertThat(call.nextWithin(300)).isNull();
        assertSilent(peer.post(ALICE, alice, reply(first, name("alice"))));
        assertThat(Peer.text(Peer.response(call, 5000))).isEqualTo("hello accept alice");
      }
      // Duplicate: the same reply again is silent, and it cannot answer a later question.
      assertSilent(peer.post(ALICE, alice, reply(first, name("again"))));
      try (SseClient call = peer.postStream(ALICE, alice, Peer.call(62, "ask"))) {
        JsonNode second = elicitationOn(call);
        assertThat(second.get("id")).isNotEqualTo(first.get("id"));
        assertSilent(peer.post(ALICE, alice, reply(first, name("stale"))));
        assertThat(call.nextWithin(300)).as("the stale reply answered nothing").isNull();
        assertSilent(peer.post(ALICE, alice, reply(second, name("second"))));
        assertThat(Peer.text(Peer.response(call, 5000))).isEqualTo("hello accept second");
      }
      assertThat(askEntries).hasValue(2);
    } finally {
      peer.delete(ALICE, alice);
      peer.delete(BOB, bob);
    }

    // Late: the reply comes after the client-request timeout ended the wait.
    String late = impatientPeer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    try (SseClient call = impatientPeer.postStream(ALICE, late, Peer.call(63, "ask"))) {
      JsonNode ask = elicitationOn(call);
      assertThat(Peer.text(Peer.response(call, 5000))).isEqualTo("timed out");
      assertSilent(impatientPeer.post(ALICE, late, reply(ask, name("too late"))));
      assertThat(impatientPeer.ping(ALICE, late)).isEqualTo(200);
    } finally {
      impatientPeer.delete(ALICE, late);
    }
  }

  static void assertRefused(JsonNode response) {
    JsonNode result = response.get("result");
    assertThat(result.get("isError").asBoolean()).isTrue();
    assertThat(Peer.text(response)).contains("not approved").contains("did not run");
  }

  @Test
  void inv35_approvalFailsClosedWithoutAStreamOrCapability() throws IOException {
    // No elicitation capability: nobody can be asked.
    String noCapability = peer.initialize(ALICE, Peer.LATEST, "{}");
    RawHttp.Response refused = peer.post(ALICE, noCapability, Peer.call(71, "guarded"));
    assertThat(refused.status()).isEqualTo(200);
    assertRefused(Peer.json(refused.body()));

    // The capability, but the client takes only JSON: there is no stream to ask on.
    String jsonOnly = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    RawHttp.Response noStream = peer.post(ALICE, jsonOnly, Peer.call(72, "guarded"),
        "Accept", "application/json");
    assertThat(noStream.status()).isEqualTo(200);
    assertThat(noStream.header("content-type")).startsWith("application/json");
    assertRefused(Peer.json(noStream.body()));

    // Nobody answers in time.
    String silent = impatientPeer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    try (SseClient call = impatientPeer.postStream(ALICE, silent, Peer.call(73, "guarded"))) {
      elicitationOn(call);
      assertRefused(Peer.response(call, 5000));
    }
    assertThat(guardedRuns).as("the handler never ran").hasValue(0);

    // An explicit accept with approve=true over a stream: the tool runs, once.
    String approving = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    try (SseClient call = peer.postStream(ALICE, approving, Peer.call(74, "guarded"))) {
      JsonNode ask = elicitationOn(call);
      JsonNode approve = ask.get("params").get("requestedSchema").get("properties")
          .get("approve");
      assertThat(approve.get("type").asString()).isEqualTo("boolean");
      assertThat(guardedRuns).hasValue(0);
      assertSilent(peer.post(ALICE, approving, reply(ask, "{\"approve\":true}")));
      JsonNode response = Peer.response(call, 5000);
      assertThat(Peer.text(response)).isEqualTo("ran");
      assertThat(response.get("result").has("isError")
          && response.get("result").get("isError").asBoolean()).isFalse();
    }
    assertThat(guardedRuns).hasValue(1);
    for (String s : new String[] {noCapability, jsonOnly, approving}) {
      peer.delete(ALICE, s);
    }
    impatientPeer.delete(ALICE, silent);
  }

  @Test
  void inv36_onlyAnExplicitApproveTrueCountsAsApproval() throws IOException {
    String session = peer.initialize(ALICE, Peer.LATEST, Peer.ELICITATION);
    String[] answers = {
        "\"result\":{\"action\":\"accept\",\"content\":{\"approve\":false}}",
        "\"result\":{\"action\":\"accept\",\"content\":{\"approve\":\"true\"}}",
        "\"result\":{\"action\":\"decline\"}",
        "\"result\":{\"action\":\"cancel\"}",
        "\"error\":{\"code\":-32603,\"message\":\"client failed\"}"};
    int id = 80;
    for (String answer : answers) {
      try (SseClient call = peer.postStream(ALICE, session, Peer.call(++id, "guarded"))) {
        JsonNode ask = elicitationOn(call);
        assertSilent(peer.post(ALICE, session,
            "{\"jsonrpc\":\"2.0\",\"id\":" + ask.get("id") + "," + answer + "}"));
        JsonNode response = Peer.response(call, 5000);
        assertThat(response.get("id").asInt()).isEqualTo(id);
        assertRefused(response);
      }
    }
    assertThat(guardedRuns).hasValue(0);
    peer.delete(ALICE, session);
  }
}
