package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Headers a peer cannot abuse (seed invariants 43 to 45): underscore look-alikes of trusted
 * headers count for nothing, every response gets its own headers even on a reused connection,
 * and a subscription to something unknown reveals nothing and keeps no state.
 */
class HeaderHygieneTest {

  static final String ALICE = "alice-secret";
  static final String BOB = "bob-secret";
  static final String PING = Peer.request(2, "ping", null);

  static McpServer server;
  static McpHttpServer http;
  static Peer peer;

  @BeforeAll
  static void start() {
    server = McpServer.builder().build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(Authenticator.bearerTokens(
            Map.of(ALICE, "alice", BOB, "bob"))))
        .start();
    peer = new Peer(http.port());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @Test
  void inv43_underscoreHeaderNamesNeverStandInForDashedOnes() throws IOException {
    String alice = peer.initialize(ALICE);
    String aliceOther = peer.initialize(ALICE);
    String bob = peer.initialize(BOB);

    // Only the underscore form: the request carries no session id at all.
    RawHttp.Response post = peer.post(ALICE, null, PING, "Mcp_Session_Id", alice);
    assertThat(post.status()).isEqualTo(400);
    assertThat(Peer.errorCode(post)).isEqualTo(-32600);
    assertThat(Peer.json(post.body()).get("error").get("message").asString())
        .contains("Mcp-Session-Id header is required");
    // GET and DELETE without a session id are not legacy requests at all: 405 (dual-era).
    assertThat(peer.getAnswer(ALICE, null, "Mcp_Session_Id", alice).status()).isEqualTo(405);
    assertThat(peer.delete(ALICE, null, "Mcp_Session_Id", alice).status()).isEqualTo(405);
    assertThat(peer.ping(ALICE, alice)).as("the underscore DELETE ended nothing").isEqualTo(200);

    // Both forms: the dashed one wins, whichever way round.
    assertThat(peer.post(ALICE, alice, PING, "Mcp_Session_Id", bob).status()).isEqualTo(200);
    assertThat(peer.post(ALICE, Peer.UNKNOWN_SESSION, PING, "Mcp_Session_Id", alice).status())
        .isEqualTo(404);
    assertThat(peer.post(BOB, alice, PING, "Mcp_Session_Id", bob).status()).isEqualTo(404);
    RawHttp.Response delete = peer.delete(ALICE, aliceOther, "Mcp_Session_Id", alice);
    assertThat(delete.status()).isEqualTo(204);
    assertThat(peer.ping(ALICE, aliceOther)).isEqualTo(404);
    assertThat(peer.ping(ALICE, alice)).isEqualTo(200);

    // Nor does an underscore protocol version count (the dashed one is what is checked).
    assertThat(peer.post(ALICE, alice, PING, "MCP_Protocol_Version", "1999-01-01").status())
        .isEqualTo(200);
    assertThat(peer.post(ALICE, alice, PING, "MCP-Protocol-Version", "1999-01-01").status())
        .isEqualTo(400);
    // Nor an underscore Authorization.
    assertThat(peer.post(null, alice, PING, "Authorization_", "Bearer " + ALICE,
        "Authorization", null).status()).isEqualTo(401);
    peer.delete(ALICE, alice);
    peer.delete(BOB, bob);
  }

  @Test
  void inv44_responseHeadersAreFreshForEveryResponse() throws IOException {
    try (RawHttp connection = new RawHttp(http.port())) {
      RawHttp.Response init = connection.request("POST", "/mcp", Peer.headers(ALICE, null),
          Peer.initializeBody(Peer.LATEST, "{}"));
      assertThat(init.status()).isEqualTo(200);
      assertThat(init.header("connection")).isNull();
      String first = init.header("mcp-session-id");
      assertThat(first).isNotBlank();

      // The same connection, the next response: no session header left over.
      RawHttp.Response ping = connection.request("POST", "/mcp", Peer.headers(ALICE, first),
          PING);
      assertThat(ping.status()).isEqualTo(200);
      assertThat(ping.header("mcp-session-id")).isNull();

      RawHttp.Response again = connection.request("POST", "/mcp", Peer.headers(ALICE, null),
          Peer.initializeBody(Peer.LATEST, "{}"));
      assertThat(again.status()).isEqualTo(200);
      String second = again.header("mcp-session-id");
      assertThat(second).isNotBlank().isNotEqualTo(first);

      RawHttp.Response notFound = connection.request("POST", "/mcp",
          Peer.headers(ALICE, Peer.UNKNOWN_SESSION), PING);
      assertThat(notFound.status()).isEqualTo(404);
      assertThat(notFound.header("mcp-session-id")).isNull();
      RawHttp.Response accepted = connection.request("POST", "/mcp", Peer.headers(ALICE, second),
          Peer.notification("notifications/initialized", null));
      assertThat(accepted.status()).isEqualTo(202);
      assertThat(accepted.header("mcp-session-id")).isNull();
      RawHttp.Response deleted = connection.request("DELETE", "/mcp",
          Peer.headers(ALICE, second), null);
      assertThat(deleted.status()).isEqualTo(204);
      assertThat(deleted.header("mcp-session-id")).isNull();
      peer.delete(ALICE, first);
    }
  }

  @Test
  void inv45_subscribingToAnUnknownResourceRevealsNothingAndKeepsNoState() throws IOException {
    String uri = "mem://not-there-yet";
    String session = peer.initialize(ALICE);
    try (SseClient listening = peer.get(ALICE, session)) {
      assertThat(listening.head().status()).isEqualTo(200);
      listening.nextWithin(5000);
      Peer.notifyWhenAttached(server, session, "notifications/attached", null);
      Peer.nextMessage(listening, 5000);

      String params = "{\"uri\":\"" + uri + "\"}";
      JsonNode read = Peer.json(peer.post(ALICE, session,
          Peer.request(3, "resources/read", params)).body()).get("error");
      JsonNode subscribe = Peer.json(peer.post(ALICE, session,
          Peer.request(4, "resources/subscribe", params)).body()).get("error");
      assertThat(read).isNotNull();
      assertThat(subscribe).isNotNull();
      assertThat(subscribe.get("code").asInt()).isEqualTo(read.get("code").asInt())
          .isEqualTo(-32002);
      assertThat(subscribe.get("message").asString()).isEqualTo(read.get("message").asString());
      assertThat(subscribe.get("data")).isEqualTo(read.get("data"));
      assertThat(server.resourceUpdated(uri)).isZero();

      // Keeps no state: once the resource exists, the refused subscription is still none.
      server.addResource(Resource.of(uri, "late", null, "text/plain"),
          (ctx, u) -> ReadResourceResult.of(ResourceContents.text(u, "text/plain", "v")));
      try {
        assertThat(Peer.nextMessage(listening, 5000).get("method").asString())
            .isEqualTo("notifications/resources/list_changed");
        assertThat(server.resourceUpdated(uri)).isZero();
        // Control: a subscription that succeeds is counted and delivered.
        RawHttp.Response ok = peer.post(ALICE, session,
            Peer.request(5, "resources/subscribe", params));
        assertThat(Peer.json(ok.body()).has("result")).isTrue();
        assertThat(server.resourceUpdated(uri)).isEqualTo(1);
        JsonNode updated = Peer.nextMessage(listening, 5000);
        assertThat(updated.get("method").asString()).isEqualTo("notifications/resources/updated");
        assertThat(updated.get("params").get("uri").asString()).isEqualTo(uri);
      } finally {
        server.removeResource(uri);
      }
    } finally {
      peer.delete(ALICE, session);
    }
  }
}
