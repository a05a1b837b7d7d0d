package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Every gate of SPEC §3.1, over real HTTP on a real Jetty, each asserting the status and the
 * JSON-RPC error code, and the order of the gates (cheap, unauthenticated checks first). Issue 14
 * moves authentication before the body of a POST is read, so the checks that need the body
 * (JSON, protocol version) now come after it.
 */
class HttpGateTest {

  static final int BODY_LIMIT = 1024;
  static final String ACCEPT = "application/json, text/event-stream";
  static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
      + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
      + "\"clientInfo\":{\"name\":\"gate-test\",\"version\":\"1\"}}}";
  static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";
  /** The one body of every 401. */
  static final String UNAUTHORIZED = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":"
      + "-32001,\"message\":\"Unauthorized\"}}";

  static McpServer server;
  static McpHttpServer http;
  static int port;

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("echo").inputSchema("{\"type\":\"object\",\"properties\":"
            + "{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}").build(),
            (ctx, args) -> CallToolResult.text(args.get("text").asString()))
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(HttpGateTest::bearer).maxBodyBytes(BODY_LIMIT))
        .start();
    port = http.port();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  /** Bearer alice / bob are two principals; anything else is refused. */
  static Optional<Principal> bearer(jakarta.servlet.http.HttpServletRequest req) {
    String auth = req.getHeader("Authorization");
    if ("Bearer alice-secret".equals(auth)) {
      return Optional.of(Principal.of("alice"));
    }
    if ("Bearer bob-secret".equals(auth)) {
      return Optional.of(Principal.of("bob"));
    }
    return Optional.empty();
  }

  static Map<String, String> headers(String... pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("Content-Type", "application/json");
    map.put("Accept", ACCEPT);
    map.put("Authorization", "Bearer alice-secret");
    for (int i = 0; i < pairs.length; i += 2) {
      map.put(pairs[i], pairs[i + 1]);
    }
    return map;
  }

  static RawHttp.Response post(String body, String... headerPairs) throws IOException {
    return RawHttp.exchange(port, "POST", "/mcp", headers(headerPairs), body);
  }

  static int errorCode(RawHttp.Response response) {
    JsonNode tree = McpJson.standard().parse(response.body());
    return tree.get("error").get("code").asInt();
  }

  static String initialize(String bearer) throws IOException {
    RawHttp.Response r = post(INIT, "Authorization", "Bearer " + bearer);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("mcp-session-id")).isNotBlank();
    return r.header("mcp-session-id");
  }

  @Test
  void wrongPathIsNotFound() throws IOException {
    for (String path : new String[] {"/other", "/mcp/", "/mcp/sub", "/"}) {
      RawHttp.Response r = RawHttp.exchange(port, "POST", path, headers(), PING);
      assertThat(r.status()).as(path).isEqualTo(404);
      assertThat(errorCode(r)).isEqualTo(-32600);
    }
  }

  @Test
  void unsupportedMethodIsRefusedWithAllow() throws IOException {
    RawHttp.Response r = RawHttp.exchange(port, "PUT", "/mcp", headers(), PING);
    assertThat(r.status()).isEqualTo(405);
    assertThat(r.header("allow")).contains("GET").contains("POST").contains("DELETE");
    assertThat(errorCode(r)).isEqualTo(-32600);
  }

  @Test
  void inv40_disallowedOriginIsForbiddenAndMissingOriginPasses() throws IOException {
    RawHttp.Response evil = post(PING, "Origin", "http://evil.example.com");
    assertThat(evil.status()).isEqualTo(403);
    assertThat(errorCode(evil)).isEqualTo(-32600);
    RawHttp.Response local = post(INIT, "Origin", "http://localhost:3000");
    assertThat(local.status()).isEqualTo(200);
    RawHttp.Response none = post(INIT);
    assertThat(none.status()).isEqualTo(200);
  }

  @Test
  void dnsRebindingHostIsForbiddenOnALoopbackBind() throws IOException {
    RawHttp.Response r = post(INIT, "Host", "evil.example.com");
    assertThat(r.status()).isEqualTo(403);
    RawHttp.Response ok = post(INIT, "Host", "localhost:" + port);
    assertThat(ok.status()).isEqualTo(200);
  }

  @Test
  void originIsCheckedBeforeAuthentication() throws IOException {
    RawHttp.Response r = post(PING, "Origin", "http://evil.example.com",
        "Authorization", "Bearer wrong");
    assertThat(r.status()).isEqualTo(403);
  }

  @Test
  void nonJsonContentTypeIsUnsupportedMediaType() throws IOException {
    RawHttp.Response r = post(PING, "Content-Type", "text/plain");
    assertThat(r.status()).isEqualTo(415);
    assertThat(errorCode(r)).isEqualTo(-32600);
  }

  @Test
  void inv39_declaredOversizedBodyIsRefusedWithoutReadingIt() throws IOException {
    try (RawHttp raw = new RawHttp(port)) {
      // Only the headers are sent: an answer proves the server did not wait for the body.
      raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
          + "Content-Type: application/json\r\nAccept: " + ACCEPT + "\r\n"
          + "Content-Length: " + (BODY_LIMIT * 100) + "\r\n\r\n");
      RawHttp.Response r = raw.readResponse(Long.MAX_VALUE);
      assertThat(r.status()).isEqualTo(413);
      assertThat(errorCode(r)).isEqualTo(-32600);
    }
  }

  @Test
  void inv39_undeclaredOversizedBodyIsRefusedAfterTheLimit() throws IOException {
    try (RawHttp raw = new RawHttp(port)) {
      raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
          + "Content-Type: application/json\r\nAccept: " + ACCEPT + "\r\n"
          + "Authorization: Bearer alice-secret\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n");
      // One chunk just over the limit; the stream is never terminated, so only a server that
      // stops reading at limit+1 bytes can answer.
      String chunk = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\""
          + "x".repeat(BODY_LIMIT) + "\"}}";
      raw.send(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
      RawHttp.Response r = raw.readResponse(Long.MAX_VALUE);
      assertThat(r.status()).isEqualTo(413);
    }
  }

  @Test
  void invalidJsonIsParseError() throws IOException {
    RawHttp.Response r = post("{\"jsonrpc\":\"2.0\",\"id\":1,");
    assertThat(r.status()).isEqualTo(400);
    assertThat(errorCode(r)).isEqualTo(-32700);
  }

  @Test
  void inv39_nestingDeeperThanTheLimitIsParseError() throws IOException {
    String deep = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"a\":"
        + "[".repeat(80) + "]".repeat(80) + "}}";
    RawHttp.Response r = post(deep);
    assertThat(r.status()).isEqualTo(400);
    assertThat(errorCode(r)).isEqualTo(-32700);
  }

  /**
   * Invariant 38 once authenticated: issue 14 reads no body before authentication, so the same
   * bodies from an unauthenticated client get the one fixed 401 (and are never read).
   */
  @Test
  void inv38_batchAndNonObjectBodiesAreInvalidRequestsOnceAuthenticated() throws IOException {
    for (String body : new String[] {"[" + PING + "]", "42", "\"text\"", "{\"jsonrpc\":\"2.0\"}",
        ""}) {
      RawHttp.Response r = post(body);
      assertThat(r.status()).as(body).isEqualTo(400);
      assertThat(errorCode(r)).as(body).isEqualTo(-32600);
      RawHttp.Response stranger = post(body, "Authorization", "Bearer nobody");
      assertThat(stranger.status()).as(body).isEqualTo(401);
      assertThat(stranger.body()).isEqualTo(UNAUTHORIZED);
    }
  }

  /**
   * Invariant 37 once authenticated: the version header of a POST is checked after its body is
   * read, which issue 14 moves after authentication; an unauthenticated request is 401 whatever
   * version it names.
   */
  @Test
  void inv37_unsupportedProtocolVersionIsRefusedOnceAuthenticated() throws IOException {
    RawHttp.Response r = post(PING, "MCP-Protocol-Version", "1999-01-01");
    assertThat(r.status()).isEqualTo(400);
    assertThat(errorCode(r)).isEqualTo(-32022);
    JsonNode data = McpJson.standard().parse(r.body()).get("error").get("data");
    assertThat(data.get("supported").toString()).contains("2025-11-25");
    RawHttp.Response stranger = post(PING, "MCP-Protocol-Version", "1999-01-01",
        "Authorization", "Bearer nobody");
    assertThat(stranger.status()).isEqualTo(401);
    assertThat(stranger.body()).isEqualTo(UNAUTHORIZED);
  }

  /** Issue 14, finding 8: authentication comes before the body, which a refusal never reads. */
  @Test
  void authenticationComesBeforeTheBodyWhichARefusalNeverReads() throws IOException {
    try (RawHttp raw = new RawHttp(port)) {
      // The head promises a body that never comes: only a server that does not wait for it
      // can answer, and it must then close the connection rather than wait for the rest.
      raw.send("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n"
          + "Content-Type: application/json\r\nAccept: " + ACCEPT + "\r\n"
          + "Authorization: Bearer wrong\r\nContent-Length: 1000\r\n\r\n{");
      RawHttp.Response r = raw.readResponse(Long.MAX_VALUE);
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.header("connection")).isEqualTo("close");
      assertThat(raw.readToEnd()).as("the server closes the connection").isEmpty();
    }
  }

  @Test
  void inv41_authenticationFailuresAllLookTheSame() throws IOException {
    RawHttp.Response wrong = post(PING, "Authorization", "Bearer wrong");
    RawHttp.Response missing = post(PING, "Authorization", null);
    RawHttp.Response malformed = post(PING, "Authorization", "Basic Zm9vOmJhcg==");
    for (RawHttp.Response r : new RawHttp.Response[] {wrong, missing, malformed}) {
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.header("www-authenticate")).startsWith("Bearer");
    }
    assertThat(wrong.body()).isEqualTo(missing.body()).isEqualTo(malformed.body());
    assertThat(wrong.body()).doesNotContain("wrong").doesNotContain("Exception");
  }

  @Test
  void requestWithoutSessionIdIsBadRequest() throws IOException {
    RawHttp.Response r = post(PING);
    assertThat(r.status()).isEqualTo(400);
    assertThat(errorCode(r)).isEqualTo(-32600);
  }

  @Test
  void unknownSessionIsNotFound() throws IOException {
    RawHttp.Response r = post(PING, "Mcp-Session-Id", "no-such-session");
    assertThat(r.status()).isEqualTo(404);
    assertThat(errorCode(r)).isEqualTo(-32600);
  }

  @Test
  void spec33_anotherPrincipalsSessionLooksExactlyLikeAnUnknownOne() throws IOException {
    String aliceSession = initialize("alice-secret");
    RawHttp.Response bob = post(PING, "Mcp-Session-Id", aliceSession,
        "Authorization", "Bearer bob-secret");
    RawHttp.Response unknown = post(PING, "Mcp-Session-Id", "no-such-session",
        "Authorization", "Bearer bob-secret");
    assertThat(bob.status()).isEqualTo(404);
    assertThat(bob.body()).isEqualTo(unknown.body());
    RawHttp.Response alice = post(PING, "Mcp-Session-Id", aliceSession);
    assertThat(alice.status()).isEqualTo(200);
  }

  @Test
  void inv3_sessionIdWithInvisibleCharactersIsBadRequest() throws IOException {
    RawHttp.Response post = post(PING, "Mcp-Session-Id", "bad id");
    assertThat(post.status()).isEqualTo(400);
    RawHttp.Response get = RawHttp.exchange(port, "GET", "/mcp",
        headers("Accept", "text/event-stream", "Mcp-Session-Id", "x".repeat(200)), null);
    assertThat(get.status()).isEqualTo(400);
    RawHttp.Response delete = RawHttp.exchange(port, "DELETE", "/mcp",
        headers("Mcp-Session-Id", "bad id"), null);
    assertThat(delete.status()).isEqualTo(400);
  }

  @Test
  void inv42_notificationCarryingAnIdIsInvalidRequest() throws IOException {
    String session = initialize("alice-secret");
    RawHttp.Response r = post("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"notifications/initialized\"}",
        "Mcp-Session-Id", session);
    assertThat(r.status()).isEqualTo(200);
    assertThat(errorCode(r)).isEqualTo(-32600);
  }

  @Test
  void notificationIsAcceptedWith202AndNoBody() throws IOException {
    String session = initialize("alice-secret");
    RawHttp.Response r = post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
        "Mcp-Session-Id", session);
    assertThat(r.status()).isEqualTo(202);
    assertThat(r.body()).isEmpty();
  }

  @Test
  void deleteEndsTheSessionAndLaterRequestsGetNotFound() throws IOException {
    String session = initialize("alice-secret");
    RawHttp.Response bobDelete = RawHttp.exchange(port, "DELETE", "/mcp",
        headers("Mcp-Session-Id", session, "Authorization", "Bearer bob-secret"), null);
    assertThat(bobDelete.status()).isEqualTo(404);
    assertThat(post(PING, "Mcp-Session-Id", session).status()).isEqualTo(200);
    RawHttp.Response delete = RawHttp.exchange(port, "DELETE", "/mcp",
        headers("Mcp-Session-Id", session), null);
    assertThat(delete.status()).isEqualTo(204);
    assertThat(post(PING, "Mcp-Session-Id", session).status()).isEqualTo(404);
  }

  @Test
  void getWithoutEventStreamAcceptIsNotAcceptable() throws IOException {
    String session = initialize("alice-secret");
    RawHttp.Response r = RawHttp.exchange(port, "GET", "/mcp",
        headers("Accept", "application/json", "Mcp-Session-Id", session), null);
    assertThat(r.status()).isEqualTo(406);
  }

  @Test
  void transportErrorsArePlainJsonWhateverTheClientAccepts() throws IOException {
    RawHttp.Response r = post("{", "Accept", "text/event-stream");
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.header("content-type")).startsWith("application/json");
  }

  @Test
  void successfulCallAnswersWithJsonWhenNothingPrecedesTheResponse() throws IOException {
    String session = initialize("alice-secret");
    RawHttp.Response r = post("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
        + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}",
        "Mcp-Session-Id", session);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("content-type")).startsWith("application/json");
    JsonNode result = McpJson.standard().parse(r.body()).get("result");
    assertThat(result.get("content").get(0).get("text").asString()).isEqualTo("hi");
  }

  /** A client that sends no Accept header accepts anything (RFC 9110 §12.5.1): served JSON. */
  @Test
  void aPostWithoutAcceptIsServedAsJson() throws IOException {
    String session = initialize("alice-secret");
    RawHttp.Response r = post("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\","
        + "\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"no accept\"}}}",
        "Mcp-Session-Id", session, "Accept", null);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("content-type")).startsWith("application/json");
    assertThat(McpJson.standard().parse(r.body()).at("/result/content/0/text").asString())
        .isEqualTo("no accept");
  }

  /**
   * An authenticator that refuses and then fails to say why still refuses: the one 401, never
   * a 500 or the request let through.
   */
  @Test
  void anAuthenticatorThatFailsToDescribeItsRefusalStillRefusesWith401() throws IOException {
    McpServer quiet = McpServer.builder().build();
    McpHttpServer broken = McpHttpServer.builder(quiet).port(0)
        .servlet(b -> b.authenticator(new dev.keel.mcp.http.Authenticator() {
          @Override
          public Optional<Principal> authenticate(jakarta.servlet.http.HttpServletRequest r) {
            return Optional.empty();
          }

          @Override
          public Refusal refusal(jakarta.servlet.http.HttpServletRequest r) {
            throw new IllegalStateException("the refusal's description broke");
          }
        })).start();
    try {
      RawHttp.Response r = RawHttp.exchange(broken.port(), "POST", "/mcp", headers(), INIT);
      assertThat(r.status()).isEqualTo(401);
      assertThat(r.body()).isEqualTo(UNAUTHORIZED);
      assertThat(r.header("www-authenticate")).startsWith("Bearer");
    } finally {
      broken.close();
      quiet.close();
    }
  }
}
