package dev.keel.mcp.http.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolAnnotations;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.ToolOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The operator console on a real Jetty: who gets in (operators only, never MCP clients or
 * anonymous callers), that an operator's secret opens nothing at {@code /mcp}, the Origin and
 * CSRF gates on every state-changing request, that the acting operator comes only from the
 * credential, that a cancel reaches the handler's token, and the read-only try-it panel.
 */
class ConsoleTest {

  static final String ALICE = "alice-operator-secret-0123";
  static final String BOB = "bob-operator-secret-456789";
  static final String CLIENT_KEY = "client-api-key-abcdefghij";
  static final CountDownLatch slowStarted = new CountDownLatch(1);
  static volatile boolean slowSawCancel;
  static McpServer server;
  static McpHttpServer http;
  static final HttpClient web = HttpClient.newBuilder().followRedirects(
      HttpClient.Redirect.NEVER).build();

  @BeforeAll
  static void start() {
    server = McpServer.builder().name("console-test").version("1")
        .tool(Tool.builder("read_echo").description("echoes")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                    + "\"required\":[\"text\"]}")
                .annotations(ToolAnnotations.readOnly()).build(),
            (ctx, args) -> CallToolResult.text("echo " + args.path("text").asString("")
                + " as " + ctx.principal().id()))
        .tool(Tool.builder("write_thing").inputSchema("{\"type\":\"object\"}")
                .annotations(new ToolAnnotations(null, false, true, false, false)).build(),
            (ctx, args) -> CallToolResult.text("wrote"))
        .tool(Tool.builder("scoped_read").inputSchema("{\"type\":\"object\"}")
                .annotations(ToolAnnotations.readOnly()).build(),
            ToolOptions.defaults().withRequiredScopes("secret:read"),
            (ctx, args) -> CallToolResult.text("secret"))
        .tool(Tool.builder("slow").inputSchema("{\"type\":\"object\"}").build(),
            (ctx, args) -> {
              slowStarted.countDown();
              try {
                Thread.sleep(30_000);
              } catch (InterruptedException e) {
                slowSawCancel = ctx.cancellation().isCancelled();
                Thread.currentThread().interrupt();
              }
              ctx.cancellation().throwIfCancelled();
              return CallToolResult.text("slept");
            })
        .build();
    http = McpHttpServer.builder(server)
        .servlet(b -> b.authenticator(ConsoleTest::clientKeys))
        .console(Console.builder().operator("alice", ALICE).operator("bob", BOB)
            .panel("Recent statements", () -> List.of(
                Map.of("statement", "select 1", "outcome", "allowed"),
                Map.of("statement", "drop table t", "outcome", "refused", "highlight", true)))
            .build())
        .start();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  static Optional<Principal> clientKeys(jakarta.servlet.http.HttpServletRequest req) {
    return ("Bearer " + CLIENT_KEY).equals(req.getHeader("Authorization"))
        ? Optional.of(Principal.of("client")) : Optional.empty();
  }

  static URI at(String rel) {
    return http.console().orElseThrow().resolve(rel);
  }

  static HttpResponse<String> send(HttpRequest.Builder b) throws IOException,
      InterruptedException {
    return web.send(b.timeout(Duration.ofSeconds(20)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(String rel, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(at(rel)).GET();
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b);
  }

  static HttpResponse<String> postJson(String rel, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(at(rel))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return send(b);
  }

  /** Logs in through the form; returns the cookie and the CSRF token. */
  static String[] login(String secret) throws Exception {
    HttpResponse<String> r = send(HttpRequest.newBuilder(at("login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("secret=" + secret)));
    assertThat(r.statusCode()).isEqualTo(303);
    String setCookie = r.headers().firstValue("Set-Cookie").orElseThrow();
    assertThat(setCookie).contains("HttpOnly").contains("SameSite=Strict")
        .contains("Path=/console");
    String cookie = setCookie.substring(0, setCookie.indexOf(';'));
    JsonNode me = json(get("api/me", "Cookie", cookie));
    return new String[] {cookie, me.get("csrf").asString()};
  }

  static JsonNode json(HttpResponse<String> r) {
    return McpJson.standard().mapper().readTree(r.body());
  }

  @Test
  void anonymousCallersGetTheLoginPageOr401() throws Exception {
    HttpResponse<String> page = get("");
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.body()).contains("Operator secret").doesNotContain("In-flight");
    assertThat(get("api/snapshot").statusCode()).isEqualTo(401);
    assertThat(get("events").statusCode()).isEqualTo(401);
    assertThat(postJson("api/cancel-request", "{\"handle\":\"x\"}").statusCode())
        .isEqualTo(401);
  }

  @Test
  void mcpClientCredentialsDoNotOpenTheConsole() throws Exception {
    // the key works at /mcp ...
    HttpResponse<String> mcp = send(HttpRequest.newBuilder(http.endpoint())
        .header("Authorization", "Bearer " + CLIENT_KEY)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(InitBody.INIT)));
    assertThat(mcp.statusCode()).isEqualTo(200);
    // ... and nowhere in the console
    for (String rel : List.of("", "api/snapshot", "api/me", "events", "api/tools")) {
      assertThat(get(rel, "Authorization", "Bearer " + CLIENT_KEY).statusCode())
          .as(rel).isEqualTo(401);
    }
    assertThat(postJson("api/cancel-task", "{\"taskId\":\"x\"}",
        "Authorization", "Bearer " + CLIENT_KEY).statusCode()).isEqualTo(401);
  }

  @Test
  void anOperatorSecretOpensTheConsoleAndNothingAtTheMcpEndpoint() throws Exception {
    HttpResponse<String> snap = get("api/snapshot", "Authorization", "Bearer " + ALICE);
    assertThat(snap.statusCode()).isEqualTo(200);
    assertThat(snap.headers().firstValue("Cache-Control")).contains("no-store");
    assertThat(snap.headers().firstValue("X-Frame-Options")).contains("DENY");
    assertThat(snap.headers().firstValue("Content-Security-Policy").orElseThrow())
        .contains("frame-ancestors 'none'").contains("script-src 'self'")
        .doesNotContain("unsafe-inline");
    JsonNode panel = json(snap).get("panels").get(0);
    assertThat(panel.get("title").asString()).isEqualTo("Recent statements");
    assertThat(panel.get("rows").get(1).get("highlight").asBoolean()).isTrue();
    HttpResponse<String> mcp = send(HttpRequest.newBuilder(http.endpoint())
        .header("Authorization", "Bearer " + ALICE)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(InitBody.INIT)));
    assertThat(mcp.statusCode()).isEqualTo(401);
  }

  @Test
  void aWrongOperatorSecretIsRefusedAndTheFormSaysSo() throws Exception {
    HttpResponse<String> r = send(HttpRequest.newBuilder(at("login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString("secret=" + CLIENT_KEY)));
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("Set-Cookie")).isEmpty();
    assertThat(r.body()).contains("role=\"alert\"");
  }

  @Test
  void stateChangingRequestsNeedAnAllowedOriginAndTheSessionsCsrfToken() throws Exception {
    String[] alice = login(ALICE);
    String body = "{\"handle\":\"nothing-runs-under-this\"}";
    assertThat(postJson("api/cancel-request", body, "Cookie", alice[0],
        "X-CSRF-Token", alice[1], "Origin", "https://evil.example").statusCode())
        .isEqualTo(403);
    assertThat(postJson("api/cancel-request", body, "Cookie", alice[0]).statusCode())
        .isEqualTo(403);
    assertThat(postJson("api/cancel-request", body, "Cookie", alice[0],
        "X-CSRF-Token", alice[1] + "x").statusCode()).isEqualTo(403);
    String[] bob = login(BOB);
    assertThat(postJson("api/cancel-request", body, "Cookie", alice[0],
        "X-CSRF-Token", bob[1]).statusCode()).as("bob's token on alice's cookie")
        .isEqualTo(403);
    // the right token and a loopback origin pass (404: nothing runs under that handle)
    assertThat(postJson("api/cancel-request", body, "Cookie", alice[0],
        "X-CSRF-Token", alice[1], "Origin", "http://127.0.0.1:" + http.port()).statusCode())
        .isEqualTo(404);
    // a form post (a cross-site page's only simple request) is not JSON
    assertThat(send(HttpRequest.newBuilder(at("api/cancel-request"))
        .header("Cookie", alice[0]).header("X-CSRF-Token", alice[1])
        .header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(body))).statusCode()).isEqualTo(415);
    // the login form too is refused from a foreign origin
    assertThat(send(HttpRequest.newBuilder(at("login"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .header("Origin", "https://evil.example")
        .POST(HttpRequest.BodyPublishers.ofString("secret=" + ALICE))).statusCode())
        .isEqualTo(403);
  }

  @Test
  void aDnsRebindingHostIsRefused() throws Exception {
    try (java.net.Socket s = new java.net.Socket("127.0.0.1", http.port())) {
      s.getOutputStream().write(("GET /console/api/snapshot HTTP/1.1\r\nHost: evil.example\r\n"
          + "Authorization: Bearer " + ALICE + "\r\nConnection: close\r\n\r\n")
          .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String head = new String(s.getInputStream().readNBytes(12),
          java.nio.charset.StandardCharsets.US_ASCII);
      assertThat(head).isEqualTo("HTTP/1.1 403");
    }
  }

  @Test
  void noHeaderParamOrBodyChangesTheActingOperator() throws Exception {
    String[] alice = login(ALICE);
    String target = "impersonation-" + System.nanoTime();
    HttpResponse<String> r = postJson("api/cancel-task?operator=bob",
        "{\"taskId\":\"" + target + "\",\"operator\":\"bob\"}", "Cookie", alice[0],
        "X-CSRF-Token", alice[1], "X-Operator", "bob", "X-Forwarded-User", "bob");
    assertThat(r.statusCode()).isEqualTo(404);
    JsonNode actions = json(get("api/actions", "Authorization", "Bearer " + BOB));
    List<String> who = new ArrayList<>();
    for (JsonNode a : actions) {
      if (a.get("target").asString().equals(target)) {
        who.add(a.get("operator").asString());
      }
    }
    assertThat(who).containsExactly("alice");
    assertThat(json(get("api/me", "Cookie", alice[0], "X-Operator", "bob"))
        .get("operator").asString()).isEqualTo("alice");
    // a bearer that is not an operator's is never passed over for the cookie
    assertThat(get("api/me", "Cookie", alice[0], "Authorization", "Bearer " + CLIENT_KEY)
        .statusCode()).isEqualTo(401);
  }

  @Test
  void aCancelFromTheConsoleFiresTheHandlersTokenAndAnswersTheClient() throws Exception {
    Thread caller = new Thread(() -> {
      try {
        HttpResponse<String> r = send(HttpRequest.newBuilder(http.endpoint())
            .header("Authorization", "Bearer " + CLIENT_KEY)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call").header("Mcp-Name", "slow")
            .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":7,"
                + "\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{},"
                + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
                + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}")));
        answered = r.body();
      } catch (Exception e) {
        answered = "failed: " + e;
      }
    });
    caller.start();
    assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();
    JsonNode running = Awaitility.await().atMost(Duration.ofSeconds(5)).until(() ->
        json(get("api/snapshot", "Authorization", "Bearer " + ALICE)).get("requests"),
        r -> r.size() == 1);
    assertThat(running.get(0).get("tool").asString()).isEqualTo("slow");
    assertThat(running.get(0).get("principal").asString()).isEqualTo("client");
    String[] alice = login(ALICE);
    long t0 = System.nanoTime();
    HttpResponse<String> cancel = postJson("api/cancel-request",
        "{\"handle\":\"" + running.get(0).get("handle").asString() + "\"}",
        "Cookie", alice[0], "X-CSRF-Token", alice[1]);
    assertThat(cancel.statusCode()).isEqualTo(200);
    caller.join(5000);
    assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(5));
    assertThat(slowSawCancel).isTrue();
    assertThat(answered).contains("-32800").contains("operator");
    Awaitility.await().atMost(Duration.ofSeconds(3)).until(() ->
        json(get("api/snapshot", "Authorization", "Bearer " + ALICE)).get("requests").size()
            == 0);
  }

  static volatile String answered;

  @Test
  void tryItRunsReadOnlyToolsAsTheOperatorThroughTheGates() throws Exception {
    JsonNode tools = json(get("api/tools", "Authorization", "Bearer " + ALICE)).get("tools");
    List<String> names = new ArrayList<>();
    tools.forEach(t -> names.add(t.get("name").asString()));
    // tools/list as the operator: a tool that needs a scope the operator lacks is not even listed
    assertThat(names).contains("read_echo")
        .doesNotContain("write_thing", "slow", "scoped_read");
    HttpResponse<String> ok = postJson("api/try",
        "{\"tool\":\"read_echo\",\"arguments\":{\"text\":\"hi\"}}", "Authorization",
        "Bearer " + ALICE);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).contains("echo hi as alice");
    HttpResponse<String> write = postJson("api/try", "{\"tool\":\"write_thing\"}",
        "Authorization", "Bearer " + ALICE);
    assertThat(write.statusCode()).isEqualTo(403);
    assertThat(json(write).get("error").asString()).contains("readOnlyHint");
    // the same scope gate as any client: the operator's principal has no scopes
    assertThat(postJson("api/try", "{\"tool\":\"scoped_read\"}", "Authorization",
        "Bearer " + ALICE).statusCode()).isEqualTo(403);
    // the same argument validation as any client: text is required
    HttpResponse<String> invalid = postJson("api/try", "{\"tool\":\"read_echo\"}",
        "Authorization", "Bearer " + ALICE);
    assertThat(json(invalid).get("result").get("isError").asBoolean()).isTrue();
    assertThat(invalid.body()).contains("required property 'text'");
  }

  @Test
  void theFeedSendsSnapshots() throws Exception {
    HttpResponse<java.io.InputStream> r = web.send(HttpRequest.newBuilder(at("events"))
        .header("Authorization", "Bearer " + ALICE).build(),
        HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("text/event-stream");
    try (java.io.BufferedReader in = new java.io.BufferedReader(
        new java.io.InputStreamReader(r.body(), java.nio.charset.StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null && !line.startsWith("data: ")) {
        // skip the comment and the event line
      }
      assertThat(line).contains("\"samples\"").contains("\"sessions\"");
      Matcher m = Pattern.compile("\"samples\":\\[").matcher(line);
      assertThat(m.find()).isTrue();
    }
  }

  @Test
  void assetsAreServedFromTheClasspathWithNoExternalReference() throws Exception {
    for (String asset : List.of("console.js", "console.css")) {
      HttpResponse<String> r = get(asset);
      assertThat(r.statusCode()).isEqualTo(200);
      // the SVG namespace is a name, not an address
      assertThat(r.body().replace("'http://www.w3.org/2000/svg'", ""))
          .doesNotContain("http://").doesNotContain("https://")
          .doesNotContain("@import");
    }
    HttpResponse<String> page = get("", "Authorization", "Bearer " + ALICE);
    assertThat(page.body()).contains("<script src=\"console.js\" defer></script>")
        .doesNotContain("<script>").doesNotContain("https://");
  }

  /** A legacy initialize body. */
  static final class InitBody {
    static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
        + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
  }
}
