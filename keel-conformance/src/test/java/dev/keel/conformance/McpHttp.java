package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** A few lines of legacy-era MCP over the JDK HttpClient, for tests that drive a real server. */
final class McpHttp {

  static final String ACCEPT = "application/json, text/event-stream";

  final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
      .build();
  final URI endpoint;

  McpHttp(URI endpoint) {
    this.endpoint = endpoint;
  }

  /** Initializes a session and sends notifications/initialized; returns the session id. */
  String initialize() throws IOException, InterruptedException {
    HttpResponse<String> r = post(null, "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
        + "\"clientInfo\":{\"name\":\"keel-test\",\"version\":\"1\"}}}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return session;
  }

  HttpResponse<String> post(String session, String body)
      throws IOException, InterruptedException {
    return client.send(request(session, body), HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> postAsync(String session, String body) {
    return client.sendAsync(request(session, body), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String session, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint).timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json").header("Accept", ACCEPT)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b.build();
  }

  static String call(long id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}}";
  }

  static String cancel(long id) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
        + "{\"requestId\":" + id + ",\"reason\":\"test\"}}";
  }
}
