package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.SignedJWT;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.OAuthResourceServer;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.ToolOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 16, done item 2: a Keel server protected by {@link OAuthResourceServer} against a real
 * authorization server (Spring Authorization Server, keel-authserver-fixture, started here as a
 * process of its own and stopped afterwards), with the tokens it really issues.
 */
class RealAuthorizationServerTest {

  private static AuthServerProcess authServer;
  private static URI issuer;
  private static URI resource;
  private static McpServer server;
  private static McpHttpServer http;
  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0)) {
      port = probe.getLocalPort();
    }
    resource = URI.create("http://127.0.0.1:" + port + "/mcp");
    authServer = AuthServerProcess.start(resource);
    issuer = authServer.issuer();
    server = McpServer.builder().name("protected").version("1")
        .tool(Tool.builder("whoami").description("Names the caller").build(),
            (ctx, args) -> CallToolResult.text(ctx.principal().id()))
        .resource(dev.keel.mcp.core.schema.Resource.of("test://ledger", "ledger", null,
            "text/plain"), (ctx, uri) -> dev.keel.mcp.core.schema.ReadResourceResult.of(
                dev.keel.mcp.core.schema.ResourceContents.text(uri, "text/plain", "ledger")),
            "mcp:admin")
        .tool(Tool.builder("slow").description("A task").build(),
            ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL), (ctx, args) -> {
              Thread.sleep(300);
              return CallToolResult.text("done");
            })
        .build();
    OAuthResourceServer oauth = OAuthResourceServer.builder(issuer, resource)
        .requiredScopes("mcp:tools").clockSkew(Duration.ZERO)
        .introspection(URI.create(issuer + "/oauth2/introspect"), "keel-rs", "keel-rs-secret")
        .introspectionCache(Duration.ZERO).build();
    http = McpHttpServer.builder(server).port(port).servlet(s -> s.oauth(oauth)).start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (http != null) {
      http.close();
      server.close();
    }
    if (authServer != null) {
      authServer.close();
    }
  }

  /**
   * A real token: client credentials, {@code client_secret_basic}, asking for the scope the
   * client is registered with (Spring grants none that was not asked for).
   */
  static String token(String client) throws Exception {
    String scope = switch (client) {
      case "noscope" -> "other";
      case "keel-rs" -> "introspect";
      default -> "mcp:tools";
    };
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(
        URI.create(issuer + "/oauth2/token"))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            (client + ":" + client + "-secret").getBytes(StandardCharsets.UTF_8)))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&scope="
            + scope))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return McpJson.standard().parseObject(r.body()).get("access_token").asString();
  }

  static int jwksFetches() throws Exception {
    return Integer.parseInt(CLIENT.send(HttpRequest.newBuilder(
        URI.create(issuer + "/test/jwks-fetches")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body().strip());
  }

  static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
      + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
      + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";

  static String meta(String capabilities) {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":" + capabilities + "}";
  }

  static HttpResponse<String> post(URI endpoint, String token, String sid, String method,
      String name, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (sid != null) {
      b.header("Mcp-Session-Id", sid).header("MCP-Protocol-Version", "2025-11-25");
    }
    if (method != null) {
      b.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", method);
      if (name != null) {
        b.header("Mcp-Name", name);
      }
    }
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> initialize(String token) throws Exception {
    return post(http.endpoint(), token, null, null, null, INITIALIZE);
  }

  static JsonNode json(String text) {
    return McpJson.standard().parse(text);
  }

  static JsonNode json(HttpResponse<String> r) {
    String body = r.body();
    int data = body.lastIndexOf("data: ");
    return McpJson.standard().parseObject(data >= 0 ? body.substring(data + 6).strip() : body);
  }

  static String session(String token) throws Exception {
    HttpResponse<String> init = initialize(token);
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    String sid = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post(http.endpoint(), token, sid, null, null,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return sid;
  }

  static HttpResponse<String> legacyCall(String token, String sid) throws Exception {
    return post(http.endpoint(), token, sid, null, null, "{\"jsonrpc\":\"2.0\",\"id\":2,"
        + "\"method\":\"tools/call\",\"params\":{\"name\":\"whoami\",\"arguments\":{}}}");
  }

  @Test
  void aRealTokenWorksInBothEras() throws Exception {
    String token = token("alice");
    HttpResponse<String> legacy = legacyCall(token, session(token));
    assertThat(json(legacy).at("/result/content/0/text").asString()).isEqualTo("alice");
    HttpResponse<String> modern = post(http.endpoint(), token, null, "tools/call", "whoami",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":"
            + "\"whoami\",\"arguments\":{}," + meta("{}") + "}}");
    assertThat(modern.statusCode()).as(modern.body()).isEqualTo(200);
    assertThat(json(modern).at("/result/content/0/text").asString()).isEqualTo("alice");
  }

  @Test
  void anExpiredTokenIsRefused() throws Exception {
    String brief = token("brief");
    assertThat(initialize(brief).statusCode()).as("valid while it lives").isEqualTo(200);
    Thread.sleep(4_100);
    HttpResponse<String> r = initialize(brief);
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow())
        .contains("error=\"invalid_token\"");
  }

  @Test
  void aTokenOfAnotherIssuerIsRefused() throws Exception {
    // the same authorization server under another name: its metadata names that issuer, its
    // keys are the same, but the tokens name 127.0.0.1
    URI otherName = URI.create(issuer.toString().replace("127.0.0.1", "localhost"));
    McpServer other = McpServer.builder().name("other").version("1").build();
    OAuthResourceServer strict = OAuthResourceServer.builder(otherName, resource).build();
    try (McpHttpServer otherHttp = McpHttpServer.builder(other).port(0)
        .servlet(s -> s.oauth(strict)).start()) {
      assertThat(post(otherHttp.endpoint(), token("alice"), null, null, null, INITIALIZE)
          .statusCode()).isEqualTo(401);
    } finally {
      other.close();
    }
  }

  @Test
  void aTokenForAnotherResourceIsRefused() throws Exception {
    assertThat(initialize(token("elsewhere")).statusCode()).isEqualTo(401);
  }

  @Test
  void aTokenWithoutTheScopeIs403NamingIt() throws Exception {
    HttpResponse<String> r = initialize(token("noscope"));
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.headers().firstValue("WWW-Authenticate").orElseThrow())
        .contains("error=\"insufficient_scope\"").contains("scope=\"mcp:tools\"");
    // a resource of its own scope: alice's token has mcp:tools, not mcp:admin
    HttpResponse<String> read = post(http.endpoint(), token("alice"), null, "resources/read",
        "test://ledger", "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\","
            + "\"params\":{\"uri\":\"test://ledger\"," + meta("{}") + "}}");
    assertThat(read.statusCode()).as(read.body()).isEqualTo(403);
    assertThat(read.headers().firstValue("WWW-Authenticate").orElseThrow())
        .contains("error=\"insufficient_scope\"").contains("mcp:admin");
    assertThat(read.body()).doesNotContain("ledger\"");
  }

  @Test
  void algNoneAnHmacForgeryAndAQueryStringTokenAreRefused() throws Exception {
    String real = token("alice");
    String[] parts = real.split("\\.");
    String none = Base64.getUrlEncoder().withoutPadding().encodeToString(
        "{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8)) + "." + parts[1] + ".";
    JWKSet published = JWKSet.parse(CLIENT.send(HttpRequest.newBuilder(
        URI.create(issuer + "/oauth2/jwks")).GET().build(),
        HttpResponse.BodyHandlers.ofString()).body());
    RSAKey publicKey = (RSAKey) published.getKeys().get(0);
    SignedJWT forged = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.HS256)
        .keyID(publicKey.getKeyID()).build(), SignedJWT.parse(real).getJWTClaimsSet());
    forged.sign(new MACSigner(publicKey.toPublicKey().getEncoded()));
    for (String token : List.of(none, forged.serialize())) {
      assertThat(initialize(token).statusCode()).isEqualTo(401);
    }
    HttpResponse<String> query = post(URI.create(http.endpoint() + "?access_token=" + real),
        real, null, null, null, INITIALIZE);
    assertThat(query.statusCode()).isEqualTo(401);
  }

  @Test
  void aRotatedKeyIsFetchedOnceAndMadeUpKeysNeverMore() throws Exception {
    assertThat(initialize(token("alice")).statusCode()).isEqualTo(200);
    int before = jwksFetches();
    CLIENT.send(HttpRequest.newBuilder(URI.create(issuer + "/test/rotate"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(initialize(token("alice")).statusCode()).as("signed with the new key")
        .isEqualTo(200);
    assertThat(jwksFetches()).as("one refresh for the unknown kid").isEqualTo(before + 1);
    SignedJWT claims = SignedJWT.parse(token("alice"));
    for (int i = 0; i < 10; i++) {
      RSAKey madeUp = new RSAKeyGenerator(2048).keyID("made-up-" + i).generate();
      SignedJWT bogus = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256)
          .keyID(madeUp.getKeyID()).build(), claims.getJWTClaimsSet());
      bogus.sign(new RSASSASigner(madeUp));
      assertThat(initialize(bogus.serialize()).statusCode()).isEqualTo(401);
    }
    assertThat(jwksFetches()).as("no fetch per made-up kid").isEqualTo(before + 1);
  }

  @Test
  void twoUsersSessionsAndTasksAreInvisibleToEachOther() throws Exception {
    String alice = token("alice");
    String bob = token("bob");
    String sid = session(alice);
    assertThat(legacyCall(bob, sid).statusCode()).as("alice's session, bob's token")
        .isEqualTo(404);
    String tasks = "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";
    HttpResponse<String> created = post(http.endpoint(), alice, null, "tools/call", "slow",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
            + "\"arguments\":{}," + meta(tasks) + "}}");
    String taskId = json(created).at("/result/taskId").asString();
    assertThat(taskId).as(created.body()).isNotBlank();
    String get = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tasks/get\",\"params\":{"
        + "\"taskId\":\"" + taskId + "\"," + meta(tasks) + "}}";
    JsonNode bobs = json(post(http.endpoint(), bob, null, "tasks/get", taskId, get));
    assertThat(bobs.at("/error/code").asInt()).as(bobs.toString()).isEqualTo(-32602);
    JsonNode alices = json(post(http.endpoint(), alice, null, "tasks/get", taskId, get));
    assertThat(alices.at("/result/taskId").asString()).isEqualTo(taskId);
  }

  @Test
  void keelFixturesTakesTheIssuerAudienceAndScopeBesideAnApiKey() throws Exception {
    try (KeelProcess keel = KeelProcess.fixtures("--oauth-issuer", issuer.toString(),
        "--oauth-audience", resource.toString(), "--oauth-scope", "mcp:tools",
        "--api-key", "ci=ci-secret")) {
      URI endpoint = URI.create(keel.url());
      assertThat(post(endpoint, token("alice"), null, null, null, INITIALIZE).statusCode())
          .as("a real token").isEqualTo(200);
      assertThat(post(endpoint, "ci-secret", null, null, null, INITIALIZE).statusCode())
          .as("the API key beside it").isEqualTo(200);
      assertThat(post(endpoint, token("noscope"), null, null, null, INITIALIZE).statusCode())
          .as("no mcp:tools").isEqualTo(403);
      HttpResponse<String> none = post(endpoint, null, null, null, null, INITIALIZE);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate").orElseThrow())
          .contains("resource_metadata=\"").contains("scope=\"mcp:tools\"");
      HttpResponse<String> metadata = CLIENT.send(HttpRequest.newBuilder(URI.create(
          endpoint.resolve("/") + ".well-known/oauth-protected-resource/mcp")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(json(metadata).path("authorization_servers").get(0).asString())
          .isEqualTo(issuer.toString());
    }
  }

  @Test
  void anOpaqueTokenIsIntrospectedAndStopsWorkingOnceRevoked() throws Exception {
    String opaque = token("opaque");
    assertThat(opaque).as("a reference token, not a JWT").doesNotContain(".");
    HttpResponse<String> init = initialize(opaque);
    assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
    HttpResponse<String> revoked = CLIENT.send(HttpRequest.newBuilder(
        URI.create(issuer + "/oauth2/revoke"))
        .header("Authorization", "Basic " + Base64.getEncoder().encodeToString(
            "opaque:opaque-secret".getBytes(StandardCharsets.UTF_8)))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("token=" + opaque)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(revoked.statusCode()).isEqualTo(200);
    assertThat(initialize(opaque).statusCode()).as("revoked, and not cached").isEqualTo(401);
    assertThat(initialize("0123456789abcdef-not-issued").statusCode()).isEqualTo(401);
  }

  @Test
  void theTypeScriptSdkClientWithItsOwnOAuthProviderGetsATokenAndCallsATool() throws Exception {
    NpmTools.ensureInstalled();
    NpmTools.Result run = NpmTools.run(List.of(NpmTools.bin("node").toString(),
        "ts-oauth-client.mjs", http.endpoint().toString(), "alice", "alice-secret",
        "mcp:tools"), NpmTools.DIR, Duration.ofMinutes(2));
    assertThat(run.exit()).as(run.output()).isZero();
    String[] lines = run.output().strip().split("\n");
    JsonNode seen = McpJson.standard().parse(lines[lines.length - 1]);
    assertThat(seen.path("whoami").asString()).isEqualTo("alice");
    assertThat(seen.path("tokenType").asString()).isEqualToIgnoringCase("bearer");
  }

  @Test
  void theKeelClientWithClientCredentialsCallsATypeScriptServerBehindItsBearerAuth()
      throws Exception {
    NpmTools.ensureInstalled();
    try (NodeServer ts = NodeServer.startHttp("oauth-server.mjs", issuer.toString(), "keel-rs",
        "keel-rs-secret");
        dev.keel.mcp.client.McpClient client = dev.keel.mcp.client.McpClient.builder(
            dev.keel.mcp.client.StreamableHttpTransport.builder(ts.endpoint())
                .oauth(dev.keel.mcp.client.OAuthClientCredentials.builder("alice",
                    "alice-secret").build())
                .build()).connect()) {
      // no scope configured: the server's 403 insufficient_scope names mcp:tools (step-up)
      CallToolResult result = client.callTool("whoami", McpJson.object());
      assertThat(((dev.keel.mcp.core.schema.TextContent) result.content().get(0)).text())
          .isEqualTo("alice");
    }
  }

  @Test
  void theKeelClientGetsItsOwnTokenForAKeelServer() throws Exception {
    try (dev.keel.mcp.client.McpClient client = dev.keel.mcp.client.McpClient.builder(
        dev.keel.mcp.client.StreamableHttpTransport.builder(http.endpoint())
            .oauth(dev.keel.mcp.client.OAuthClientCredentials.builder("bob", "bob-secret")
                .authMethod(dev.keel.mcp.client.OAuthClientCredentials.AuthMethod
                    .CLIENT_SECRET_POST).build())
            .build()).connect()) {
      CallToolResult result = client.callTool("whoami", McpJson.object());
      assertThat(((dev.keel.mcp.core.schema.TextContent) result.content().get(0)).text())
          .isEqualTo("bob");
    }
  }

  @Test
  void aPersonSignsInThroughTheKeelClientAndItsRefreshTokenRotates() throws Exception {
    dev.keel.mcp.client.OAuthTokenStore store = dev.keel.mcp.client.OAuthTokenStore.inMemory();
    java.util.concurrent.atomic.AtomicInteger signIns =
        new java.util.concurrent.atomic.AtomicInteger();
    dev.keel.mcp.client.OAuthUserStep person = new dev.keel.mcp.client.OAuthUserStep() {
      @Override
      public URI redirectUri() {
        return URI.create("http://127.0.0.1:1/callback");
      }

      @Override
      public URI authorize(URI request) {
        signIns.incrementAndGet();
        assertThat(request.getQuery()).contains("code_challenge_method=S256")
            .contains("resource=" + resource).contains("state=");
        try {
          return BrowserStandIn.signIn(request, "alice", "alice-password",
              "http://127.0.0.1:1/callback");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }
    };
    dev.keel.mcp.client.OAuthAuthorizationCode flow =
        dev.keel.mcp.client.OAuthAuthorizationCode.builder(person)
            .client("keel-cli-brief", "keel-cli-brief-secret").tokenStore(store).build();
    try (dev.keel.mcp.client.McpClient client = dev.keel.mcp.client.McpClient.builder(
        dev.keel.mcp.client.StreamableHttpTransport.builder(http.endpoint()).oauth(flow)
            .build()).connect()) {
      CallToolResult first = client.callTool("whoami", McpJson.object());
      assertThat(((dev.keel.mcp.core.schema.TextContent) first.content().get(0)).text())
          .as("the person, not the client").isEqualTo("alice");
      String before = json(store.get("tokens " + http.endpoint()).orElseThrow())
          .path("refresh_token").asString();
      assertThat(before).isNotEmpty();
      Thread.sleep(3_000); // the access token lives two seconds
      CallToolResult second = client.callTool("whoami", McpJson.object());
      assertThat(((dev.keel.mcp.core.schema.TextContent) second.content().get(0)).text())
          .isEqualTo("alice");
      String after = json(store.get("tokens " + http.endpoint()).orElseThrow())
          .path("refresh_token").asString();
      assertThat(after).as("a rotated refresh token replaced the used one")
          .isNotEmpty().isNotEqualTo(before);
      assertThat(signIns.get()).as("the refresh needed no second sign-in").isEqualTo(1);
    }
  }
}
