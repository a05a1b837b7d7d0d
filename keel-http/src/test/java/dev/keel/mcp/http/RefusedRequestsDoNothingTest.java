package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A gate that refuses a request ends it: the refusal is the whole answer and the request goes
 * no further. Each refused request below is a valid stateless {@code tools/call} but for the
 * one thing its gate refuses; the tool counts its calls, and must never be called. Mutation
 * testing found that the gates' own tests, which look only at the status, would not notice a
 * gate that answered and then let the request through.
 */
class RefusedRequestsDoNothingTest {

  static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}";
  static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\","
      + "\"params\":{\"name\":\"count\"," + META + "}}";
  static final AtomicInteger calls = new AtomicInteger();

  static McpServer server;
  static McpHttpServer http;

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("count").build(), (ctx, args) -> {
          calls.incrementAndGet();
          return CallToolResult.text("counted");
        })
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(HttpGateTest::bearer).maxBodyBytes(4096)
            .rateLimiter(req -> "yes".equals(req.getHeader("X-Throttle"))
                ? Optional.of(Duration.ofMillis(1_500)) : Optional.empty()))
        .start();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @BeforeEach
  void reset() {
    calls.set(0);
  }

  static Map<String, String> headers(String... pairs) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", "application/json");
    h.put("Accept", "application/json, text/event-stream");
    h.put("Authorization", "Bearer alice-secret");
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", "tools/call");
    h.put("Mcp-Name", "count");
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] == null) {
        h.remove(pairs[i]);
      } else {
        h.put(pairs[i], pairs[i + 1]);
      }
    }
    return h;
  }

  /**
   * The tool was not called, and is not called a moment later either: a gate that answered
   * and let the request go on would run it after its answer went out.
   */
  static void ranNothing() {
    org.awaitility.Awaitility.await().during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2)).until(() -> calls.get() == 0);
  }

  RawHttp.Response send(String method, String path, Map<String, String> headers, String body)
      throws IOException {
    return RawHttp.exchange(http.port(), method, path, headers, body);
  }

  @org.junit.jupiter.api.Test
  void theSameCallUnrefusedRuns() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers(), CALL);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).contains("counted");
    assertThat(calls).hasValue(1);
  }

  @ParameterizedTest
  @ValueSource(strings = {"/other", "/mcp/", "/"})
  void aCallToAnotherPathIsNotFoundAndRunsNothing(String path) throws IOException {
    RawHttp.Response r = send("POST", path, headers(), CALL);
    assertThat(r.status()).isEqualTo(404);
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aThrottledCallIsRefusedWithRetryAfterInWholeSecondsAndRunsNothing() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers("X-Throttle", "yes"), CALL);
    assertThat(r.status()).isEqualTo(429);
    // 1.5 s rounds up, never down to 1 or to 0
    assertThat(r.header("retry-after")).isEqualTo("2");
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallWithAnotherMethodIsRefusedAndRunsNothing() throws IOException {
    RawHttp.Response r = send("PUT", "/mcp", headers(), CALL);
    assertThat(r.status()).isEqualTo(405);
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallFromAForeignOriginIsForbiddenAndRunsNothing() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers("Origin", "http://evil.example.com"),
        CALL);
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallThatIsNotJsonByItsContentTypeIsRefusedAndRunsNothing() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers("Content-Type", "text/plain"), CALL);
    assertThat(r.status()).isEqualTo(415);
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallLargerThanTheLimitIsRefusedAndRunsNothing() throws IOException {
    String padded = CALL.replace("\"name\":\"count\",", "\"name\":\"count\",\"pad\":\""
        + "x".repeat(4096) + "\",");
    RawHttp.Response r = send("POST", "/mcp", headers(), padded);
    assertThat(r.status()).isEqualTo(413);
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallOfExactlyTheLimitIsRead() throws IOException {
    String pad = "\"pad\":\"\",";
    int room = 4096 - CALL.length() - pad.length();
    String exact = CALL.replace("\"name\":\"count\",", "\"name\":\"count\",\"pad\":\""
        + "x".repeat(room) + "\",");
    assertThat(exact).hasSize(4096);
    RawHttp.Response r = send("POST", "/mcp", headers(), exact);
    assertThat(r.status()).isEqualTo(200);
    assertThat(calls).hasValue(1);
  }

  @org.junit.jupiter.api.Test
  void aCallThatAcceptsNeitherJsonNorSseIsRefusedAndRunsNothing() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers("Accept", "text/html"), CALL);
    assertThat(r.status()).isEqualTo(406);
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallOfAnUnknownProtocolVersionIsRefusedAndRunsNothing() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers("MCP-Protocol-Version", "2099-01-01"),
        CALL);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallWhoseHeadersDisagreeWithItsBodyIsRefusedAndRunsNothing() throws IOException {
    RawHttp.Response r = send("POST", "/mcp", headers("Mcp-Name", "other"), CALL);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }

  @org.junit.jupiter.api.Test
  void aCallOfAProtocolVersionNoServerSpeaksIsRefusedWithTheSupportedOnes() throws IOException {
    String call = CALL.replace("2026-07-28", "2099-01-01");
    RawHttp.Response r = send("POST", "/mcp", headers("MCP-Protocol-Version", "2099-01-01"),
        call);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).contains("2026-07-28").doesNotContain("counted");
    ranNothing();
  }

  /** API keys as {@code --api-key} sets them: the shortest key, any case of the scheme. */
  @org.junit.jupiter.api.Test
  void anApiKeyOfOneCharacterAuthenticatesAndABlankOneDoesNot() throws IOException {
    McpHttpServer keyed = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(new dev.keel.mcp.http.internal.BearerTokenAuthenticator(
            Map.of("k", "alice"))))
        .start();
    try {
      for (String auth : new String[] {"Bearer k", "bearer k", "Bearer  k "}) {
        RawHttp.Response ok = RawHttp.exchange(keyed.port(), "POST", "/mcp",
            headers("Authorization", auth), CALL);
        assertThat(ok.status()).as(auth).isEqualTo(200);
      }
      for (String auth : new String[] {"Bearer ", "Bearer  ", "Bearer", "Basic k", "Bearerk",
          "Bearer kk"}) {
        RawHttp.Response refused = RawHttp.exchange(keyed.port(), "POST", "/mcp",
            headers("Authorization", auth), CALL);
        assertThat(refused.status()).as(auth).isEqualTo(401);
      }
      assertThat(calls).hasValue(3);
    } finally {
      keyed.close();
    }
  }

  @org.junit.jupiter.api.Test
  void aSessionCallOfAnUnknownVersionIsRefusedAndRunsNothing() throws IOException {
    Map<String, String> legacy = headers("MCP-Protocol-Version", null, "Mcp-Method", null,
        "Mcp-Name", null);
    RawHttp.Response init = send("POST", "/mcp", legacy, HttpGateTest.INIT);
    assertThat(init.status()).isEqualTo(200);
    String session = init.header("mcp-session-id");
    Map<String, String> inSession = new LinkedHashMap<>(legacy);
    inSession.put("Mcp-Session-Id", session);
    inSession.put("MCP-Protocol-Version", "2025-11-25");
    send("POST", "/mcp", inSession,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    String call = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\","
        + "\"params\":{\"name\":\"count\"}}";
    RawHttp.Response runs = send("POST", "/mcp", inSession, call);
    assertThat(runs.body()).contains("counted");
    calls.set(0);

    inSession.put("MCP-Protocol-Version", "1999-01-01");
    RawHttp.Response r = send("POST", "/mcp", inSession, call);
    assertThat(r.status()).isEqualTo(400);
    assertThat(r.body()).doesNotContain("counted");
    ranNothing();
  }
}
