package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The stateless era over real HTTP on the endpoint legacy sessions use: header checks (after
 * authentication, which issue 14 puts before the body) with their exact statuses and codes, no
 * session minted, and a closed response stream cancelling its request and interrupting the
 * handler.
 */
class ModernHttpTest {

  static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}";

  static McpServer server;
  static McpHttpServer http;
  /** The same server behind fast keep-alives, which find a vanished client quickly. */
  static McpHttpServer fastKeepAlive;
  static volatile CountDownLatch started = new CountDownLatch(1);
  static final AtomicReference<String> cancelReason = new AtomicReference<>();
  static final CountDownLatch interrupted = new CountDownLatch(1);

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("block").build(), (ctx, args) -> {
          ctx.cancellation().onCancel(() -> cancelReason.set(ctx.cancellation().reason()));
          started.countDown();
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            interrupted.countDown();
            throw e;
          }
          return CallToolResult.text("finished");
        })
        .tool(Tool.builder("logs").build(), (ctx, args) -> {
          ctx.log(LoggingLevel.INFO, "only when asked");
          return CallToolResult.text("logged");
        })
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(HttpGateTest::bearer))
        .start();
    fastKeepAlive = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.keepAlive(Duration.ofMillis(100)).authenticator(HttpGateTest::bearer))
        .start();
  }

  @AfterAll
  static void stop() {
    fastKeepAlive.close();
    http.close();
    server.close();
  }

  static Map<String, String> headers(String method, String name, String... extra) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", "application/json");
    h.put("Accept", "application/json, text/event-stream");
    h.put("Authorization", "Bearer alice-secret");
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", method);
    if (name != null) {
      h.put("Mcp-Name", name);
    }
    for (int i = 0; i < extra.length; i += 2) {
      h.put(extra[i], extra[i + 1]);
    }
    return h;
  }

  static RawHttp.Response post(Map<String, String> headers, String body) throws IOException {
    return RawHttp.exchange(http.port(), "POST", "/mcp", headers, body);
  }

  static String call(String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\""
        + tool + "\"," + META + "}}";
  }

  static int code(RawHttp.Response r) {
    return McpJson.standard().parse(r.body()).get("error").get("code").asInt();
  }

  /**
   * Issue 15: {@code mcp-remote} sends {@code Mcp-Method} on every request, a plain 2025
   * {@code initialize} included, and curl users send it inside legacy sessions. The header
   * decides no era: these are legacy requests and are served as such.
   */
  @Test
  void legacyRequestsWithMirroredHeadersStayLegacy() throws IOException {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", "application/json");
    h.put("Accept", "application/json, text/event-stream");
    h.put("Authorization", "Bearer alice-secret");
    h.put("Mcp-Method", "initialize");
    RawHttp.Response init = post(h, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        + "\"clientInfo\":{\"name\":\"mcp-remote\",\"version\":\"0\"}}}");
    assertThat(init.status()).as(init.body()).isEqualTo(200);
    String session = init.header("mcp-session-id");
    assertThat(session).isNotNull();
    h.put("Mcp-Session-Id", session);
    h.put("MCP-Protocol-Version", "2025-11-25");
    h.put("Mcp-Method", "notifications/initialized");
    assertThat(post(h, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}")
        .status()).isEqualTo(202);
    h.put("Mcp-Method", "tools/list");
    RawHttp.Response list = post(h, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
    assertThat(list.status()).as(list.body()).isEqualTo(200);
    assertThat(list.body()).contains("\"block\"").doesNotContain("\"error\"");
  }

  @Test
  void discoverIsServedStatelesslyAndMintsNoSession() throws IOException {
    RawHttp.Response r = post(headers("server/discover", null, "Mcp-Session-Id", "whatever"),
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + META
            + "}}");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("mcp-session-id")).isNull();
    JsonNode result = McpJson.standard().parse(r.body()).get("result");
    assertThat(result.get("supportedVersions").toString()).isEqualTo("[\"2026-07-28\"]");
    assertThat(result.get("resultType").asString()).isEqualTo("complete");
    assertThat(result.get("ttlMs").isIntegralNumber()).isTrue();
    assertThat(server.metrics().sessions()).isZero();
  }

  /**
   * The header checks need the body, which issue 14 reads only after authentication: an
   * authenticated request gets each check's own status and code, and the same requests from an
   * unauthenticated client all get the one 401.
   */
  @Test
  void headerChecksComeAfterAuthenticationWithTheirCodes() throws IOException {
    String body = call("block");
    String noMeta = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"block\"}}";
    String unsupportedBody = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\","
        + "\"params\":{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    Object[][] cases = {
        {headers("tools/list", "block"), body, -32020},
        {headers("tools/call", "other"), body, -32020},
        {headers("tools/call", "block", "MCP-Protocol-Version", "2025-11-25"), body, -32020},
        // no header at all (RawHttp leaves out a header whose value is null)
        {headers("tools/call", "block", "MCP-Protocol-Version", null), body, -32020},
        {headers("tools/call", "block"), noMeta, -32602},
        {headers("server/discover", null, "MCP-Protocol-Version", "2099-01-01"),
            unsupportedBody, -32022}};
    for (Object[] c : cases) {
      @SuppressWarnings("unchecked")
      Map<String, String> h = (Map<String, String>) c[0];
      RawHttp.Response r = post(h, (String) c[1]);
      assertThat(r.status()).as("%s", h).isEqualTo(400);
      assertThat(code(r)).as("%s", h).isEqualTo((int) c[2]);
      Map<String, String> stranger = new LinkedHashMap<>(h);
      stranger.put("Authorization", "Bearer x");
      assertThat(post(stranger, (String) c[1]).status()).as("unauthenticated %s", h)
          .isEqualTo(401);
    }
  }

  @Test
  void unknownAndLegacyOnlyMethodsAre404MethodNotFound() throws IOException {
    for (String method : new String[] {"ping", "initialize", "logging/setLevel", "nope/nope"}) {
      RawHttp.Response r = post(headers(method, null), "{\"jsonrpc\":\"2.0\",\"id\":3,"
          + "\"method\":\"" + method + "\",\"params\":{" + META + "}}");
      assertThat(r.status()).as(method).isEqualTo(404);
      assertThat(code(r)).as(method).isEqualTo(-32601);
    }
  }

  @Test
  void getAndDeleteWithoutASessionAre405() throws IOException {
    assertThat(RawHttp.exchange(http.port(), "GET", "/mcp",
        Map.of("Accept", "text/event-stream", "Authorization", "Bearer alice-secret"), null)
        .status()).isEqualTo(405);
    RawHttp.Response delete = RawHttp.exchange(http.port(), "DELETE", "/mcp",
        Map.of("Authorization", "Bearer alice-secret"), null);
    assertThat(delete.status()).isEqualTo(405);
    assertThat(delete.header("allow")).isEqualTo("POST");
  }

  @Test
  void logsFlowOnlyWhenTheRequestAsksForThem() throws IOException {
    RawHttp.Response quiet = post(headers("tools/call", "logs"), call("logs"));
    assertThat(quiet.header("content-type")).startsWith("application/json");
    assertThat(quiet.body()).doesNotContain("notifications/message");
    String asking = "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"logs\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
        + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
        + "\"io.modelcontextprotocol/logLevel\":\"info\"}}}";
    RawHttp.Response loud = post(headers("tools/call", "logs"), asking);
    assertThat(loud.header("content-type")).startsWith("text/event-stream");
    assertThat(loud.body()).contains("notifications/message").contains("only when asked");
  }

  @Test
  void closingTheResponseStreamCancelsTheRequestAndInterruptsTheHandler() throws Exception {
    try (SseClient sse = SseClient.open(fastKeepAlive.port(), "POST",
        headers("tools/call", "block"),
        call("block"))) {
      assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
      sse.abort();
    }
    assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("the handler was interrupted")
        .isTrue();
    // The interrupt and the cancel hooks run on the cancelling thread in no promised order.
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
        .until(() -> cancelReason.get() != null);
    assertThat(cancelReason.get()).contains("disconnect");
  }
}
