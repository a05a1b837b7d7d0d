package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A Keel server as an OAuth resource server (issue 16): what a token must be to be let in, what
 * a refused request is told, the metadata that tells clients where tokens come from, and that
 * the key set is fetched again only when a token names a key it does not hold, at a bounded rate.
 */
class OAuthResourceServerTest {

  static final String AUDIENCE_PATH = "/mcp";

  private AuthorizationServerStandIn as;
  private McpServer server;
  private McpHttpServer http;
  private URI resource;
  private final HttpClient client = HttpClient.newHttpClient();

  @BeforeEach
  void start() throws Exception {
    as = new AuthorizationServerStandIn();
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    resource = URI.create("http://127.0.0.1:" + port + AUDIENCE_PATH);
    OAuthResourceServer oauth = OAuthResourceServer.builder(as.issuer, resource)
        .requiredScopes("mcp:tools").resourceName("test resource")
        .keyRefreshInterval(Duration.ofSeconds(30)).build();
    server = McpServer.builder().name("protected").version("1")
        .tool(Tool.builder("whoami").description("Names the caller").build(),
            (ctx, args) -> CallToolResult.text(ctx.principal().id() + " scope="
                + ctx.principal().claims().get("scope")))
        .tool(Tool.builder("admin").description("Needs mcp:admin").build(),
            dev.keel.mcp.server.ToolOptions.defaults().withRequiredScopes("mcp:admin"),
            (ctx, args) -> CallToolResult.text("admin done"))
        .build();
    http = McpHttpServer.builder(server).port(port).servlet(s -> s.oauth(oauth)
        .authenticator(Authenticator.anyOf(oauth,
            Authenticator.bearerTokens(java.util.Map.of("static-secret-key", "ci-bot")))))
        .start();
  }

  @AfterEach
  void stop() throws Exception {
    http.close();
    server.close();
    as.close();
  }

  private String valid(String subject) throws Exception {
    return as.token(subject, resource.toString(), "mcp:tools openid");
  }

  private HttpResponse<String> post(String token, String sessionId, String body,
      boolean modern) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(http.endpoint())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (sessionId != null) {
      b.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", "2025-11-25");
    }
    if (modern) {
      b.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
          .header("Mcp-Name", "whoami");
    }
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
      + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
      + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
  private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\","
      + "\"params\":{\"name\":\"whoami\",\"arguments\":{}}}";
  private static final String MODERN_CALL = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\","
      + "\"params\":{\"name\":\"whoami\",\"arguments\":{},\"_meta\":{"
      + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

  private String legacySession(String token) throws Exception {
    HttpResponse<String> init = post(token, null, INITIALIZE, false);
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String sid = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post(token, sid, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", false);
    return sid;
  }

  private static String text(HttpResponse<String> response) {
    String body = response.body();
    int data = body.lastIndexOf("data: ");
    JsonNode json = McpJson.standard().parseObject(data >= 0
        ? body.substring(data + 6).strip() : body);
    return json.at("/result/content/0/text").asString();
  }

  @Test
  void aValidTokenWorksInBothErasAndTheToolSeesItsVerifiedClaims() throws Exception {
    String token = valid("alice");
    String sid = legacySession(token);
    HttpResponse<String> legacy = post(token, sid, CALL, false);
    assertThat(legacy.statusCode()).isEqualTo(200);
    assertThat(text(legacy)).isEqualTo("alice scope=mcp:tools openid");

    HttpResponse<String> modern = post(token, null, MODERN_CALL, true);
    assertThat(modern.statusCode()).as(modern.body()).isEqualTo(200);
    assertThat(text(modern)).isEqualTo("alice scope=mcp:tools openid");
  }

  @Test
  void noTokenIs401WithTheMetadataAndTheScopeInTheChallenge() throws Exception {
    HttpResponse<String> r = post(null, null, INITIALIZE, false);
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow()).isEqualTo(
        "Bearer resource_metadata=\"http://127.0.0.1:" + resource.getPort()
            + "/.well-known/oauth-protected-resource/mcp\", scope=\"mcp:tools\"");
  }

  @Test
  void theMetadataIsServedAtThePathSuffixedAndTheRootWellKnownUris() throws Exception {
    for (String path : new String[] {"/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource"}) {
      HttpResponse<String> r = client.send(HttpRequest.newBuilder(
          URI.create("http://127.0.0.1:" + resource.getPort() + path)).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).as(path).isEqualTo(200);
      // JSON, and readable from a browser-based client on another origin (RFC 9728 is public)
      assertThat(r.headers().firstValue("Content-Type")).get().asString()
          .startsWith("application/json");
      assertThat(r.headers().firstValue("Access-Control-Allow-Origin")).contains("*");
      JsonNode doc = McpJson.standard().parseObject(r.body());
      assertThat(doc.path("resource").asString()).isEqualTo(resource.toString());
      assertThat(doc.path("authorization_servers").get(0).asString())
          .isEqualTo(as.issuer.toString());
      assertThat(doc.path("bearer_methods_supported").get(0).asString()).isEqualTo("header");
      assertThat(doc.path("scopes_supported").get(0).asString()).isEqualTo("mcp:tools");
    }
  }

  @Test
  void expiredWrongIssuerWrongAudienceAndNotYetValidTokensAreInvalid() throws Exception {
    Instant now = Instant.now();
    String[] refused = {
        as.token("alice", resource.toString(), "mcp:tools",
            b -> b.expirationTime(Date.from(now.minusSeconds(600)))),
        as.token("alice", resource.toString(), "mcp:tools",
            b -> b.issuer("http://127.0.0.1:1/another-issuer")),
        as.token("alice", "http://127.0.0.1:1/another-resource", "mcp:tools"),
        as.token("alice", resource.toString(), "mcp:tools",
            b -> b.notBeforeTime(Date.from(now.plusSeconds(600)))),
        "not-a-jwt",
    };
    for (String token : refused) {
      HttpResponse<String> r = post(token, null, INITIALIZE, false);
      assertThat(r.statusCode()).as(token).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow())
          .startsWith("Bearer error=\"invalid_token\", resource_metadata=");
      assertThat(r.body()).doesNotContain("expired", "issuer", "audience");
    }
  }

  @Test
  void algNoneAndAnHmacForgeryKeyedWithThePublicKeyAreRefused() throws Exception {
    RSAKey key = as.currentKey();
    PlainJWT unsigned = new PlainJWT(as.claims("alice", resource.toString(), "mcp:tools",
        b -> b));
    // the classic confusion: HS256 with the RSA public key's bytes as the shared secret
    SignedJWT forged = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256)
        .keyID(key.getKeyID()).build(), as.claims("alice", resource.toString(), "mcp:tools",
        b -> b));
    forged.sign(new MACSigner(key.toPublicKey().getEncoded()));
    for (String token : new String[] {unsigned.serialize(), forged.serialize()}) {
      assertThat(post(token, null, INITIALIZE, false).statusCode()).isEqualTo(401);
    }
  }

  @Test
  void aTokenInTheQueryStringIsRefusedEvenWithAValidHeader() throws Exception {
    String token = valid("alice");
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(
        URI.create(http.endpoint() + "?access_token=" + token))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofString(INITIALIZE)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow())
        .startsWith("Bearer error=\"invalid_request\"");
  }

  @Test
  void aValidTokenWithoutTheRequiredScopeIs403NamingIt() throws Exception {
    HttpResponse<String> r = post(as.token("alice", resource.toString(), "openid"), null,
        INITIALIZE, false);
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow()).startsWith(
        "Bearer error=\"insufficient_scope\"").endsWith("scope=\"mcp:tools\"");
  }

  @Test
  void anUnknownKeyIdFetchesTheKeysOnceAndThenNotAgainWithinTheInterval() throws Exception {
    assertThat(post(valid("alice"), null, INITIALIZE, false).statusCode()).isEqualTo(200);
    assertThat(as.jwksFetches.get()).as("keys fetched on first use").isEqualTo(1);
    assertThat(as.metadataFetches.get()).isEqualTo(1);

    as.rotate("key-2"); // the authorization server signs with a new key from now on
    assertThat(post(valid("alice"), null, INITIALIZE, false).statusCode()).isEqualTo(200);
    assertThat(as.jwksFetches.get()).as("one refresh for the new kid").isEqualTo(2);

    // tokens naming keys nobody published: refused, and no fetch per token
    for (int i = 0; i < 20; i++) {
      String bogus = AuthorizationServerStandIn.sign(AuthorizationServerStandIn.newKey(
          "made-up-" + i), as.claims("mallory", resource.toString(), "mcp:tools", b -> b));
      assertThat(post(bogus, null, INITIALIZE, false).statusCode()).isEqualTo(401);
    }
    assertThat(as.jwksFetches.get()).as("at most one fetch per interval").isEqualTo(2);
  }

  @Test
  void twoUsersSessionsAreInvisibleToEachOther() throws Exception {
    String alice = valid("alice");
    String sid = legacySession(alice);
    HttpResponse<String> bob = post(valid("bob"), sid, CALL, false);
    assertThat(bob.statusCode()).as("another user's session looks unknown").isEqualTo(404);
    HttpResponse<String> again = post(alice, sid, CALL, false);
    assertThat(text(again)).startsWith("alice");
  }

  @Test
  void anApiKeyWorksBesideOAuthAndARefusalStillCarriesTheOAuthChallenge() throws Exception {
    String sid = legacySession("static-secret-key");
    assertThat(text(post("static-secret-key", sid, CALL, false))).startsWith("ci-bot");
    HttpResponse<String> wrong = post("wrong-key", null, INITIALIZE, false);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.headers().firstValue("WWW-Authenticate").orElseThrow())
        .startsWith("Bearer error=\"invalid_token\", resource_metadata=");
  }

  private static String call(String tool, int id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"" + tool + "\",\"arguments\":{}}}";
  }

  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}";

  @Test
  void aToolsScopesAreCheckedBeforeItRunsAndItIsShownOnlyToWhoMayCallIt() throws Exception {
    String plain = valid("alice");
    String sid = legacySession(plain);
    String listed = post(plain, sid, LIST, false).body();
    assertThat(listed).contains("\"whoami\"").doesNotContain("\"admin\"");
    HttpResponse<String> refused = post(plain, sid, call("admin", 10), false);
    assertThat(refused.statusCode()).isEqualTo(403);
    assertThat(refused.headers().firstValue("WWW-Authenticate").orElseThrow()).isEqualTo(
        "Bearer error=\"insufficient_scope\", resource_metadata=\"" + "http://127.0.0.1:"
            + resource.getPort() + "/.well-known/oauth-protected-resource/mcp\", "
            + "scope=\"mcp:admin mcp:tools\"");

    String modernAdmin = "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"admin\",\"arguments\":{},\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    HttpResponse<String> modern = client.send(HttpRequest.newBuilder(http.endpoint())
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", "Bearer " + plain)
        .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
        .header("Mcp-Name", "admin")
        .POST(HttpRequest.BodyPublishers.ofString(modernAdmin)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(modern.statusCode()).as(modern.body()).isEqualTo(403);

    String admin = as.token("root", resource.toString(), "mcp:tools mcp:admin");
    String adminSession = legacySession(admin);
    assertThat(post(admin, adminSession, LIST, false).body()).contains("\"admin\"");
    assertThat(text(post(admin, adminSession, call("admin", 12), false))).isEqualTo("admin done");

    // an API key is not scope-based: nothing restricts it
    String keySession = legacySession("static-secret-key");
    assertThat(text(post("static-secret-key", keySession, call("admin", 13), false)))
        .isEqualTo("admin done");
  }

  @Test
  void symmetricAlgorithmsCannotBeConfigured() {
    assertThatThrownBy(() -> OAuthResourceServer.builder(as.issuer, resource)
        .algorithms("HS256").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("HS256");
    assertThatThrownBy(() -> OAuthResourceServer.builder(
        URI.create("http://auth.example.com/"), resource).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("https");
  }

  @Test
  void offlineAccessIsNeverRequiredNorAdvertised() {
    assertThatThrownBy(() -> OAuthResourceServer.builder(as.issuer, resource)
        .requiredScopes("mcp:tools", "offline_access"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("offline_access");
    OAuthResourceServer rs = OAuthResourceServer.builder(as.issuer, resource)
        .scopesSupported("mcp:read", "offline_access").build();
    assertThat(rs.metadataJson()).contains("mcp:read").doesNotContain("offline_access");
  }
}
