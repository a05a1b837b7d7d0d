package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The health path and the pre-auth rate limiter (SPEC §3.1 rows 2 and 3). */
class HttpLimitGateTest {

  static McpServer server;
  static McpHttpServer http;

  @BeforeAll
  static void start() {
    server = McpServer.builder().build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(req -> Optional.empty())
            .rateLimiter(RateLimiter.perClientAddress(0.01, 2)))
        .start();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @Test
  void rateLimiterRefusesWith429AndRetryAfterBeforeAuthenticationAndHealthStaysUp()
      throws IOException {
    Map<String, String> headers = HttpGateTest.headers();
    int port = http.port();
    // The authenticator refuses everyone: the first two requests reach it (401), the third is
    // stopped earlier by the limiter.
    assertThat(RawHttp.exchange(port, "POST", "/mcp", headers, HttpGateTest.PING).status())
        .isEqualTo(401);
    assertThat(RawHttp.exchange(port, "POST", "/mcp", headers, HttpGateTest.PING).status())
        .isEqualTo(401);
    RawHttp.Response limited = RawHttp.exchange(port, "POST", "/mcp", headers,
        HttpGateTest.PING);
    assertThat(limited.status()).isEqualTo(429);
    assertThat(Long.parseLong(limited.header("retry-after"))).isPositive();
    assertThat(HttpGateTest.errorCode(limited)).isEqualTo(-32000);

    RawHttp.Response health = RawHttp.exchange(port, "GET", "/health", Map.of(), null);
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("{\"status\":\"ok\"}");
  }
}
