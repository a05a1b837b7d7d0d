package dev.keel.mcp.http.readme;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The README's example is this package's {@code Demo.java}, verbatim: it compiles, and the
 * server it builds answers both of its tools over HTTP.
 */
class ReadmeExampleTest {

  static final String ACCEPT = "application/json, text/event-stream";

  @Test
  void readmeShowsDemoJavaVerbatim() throws Exception {
    String demo = Files.readString(Path.of("src/test/java/dev/keel/mcp/http/readme/Demo.java"));
    String body = demo.substring(demo.indexOf("import "));
    String readme = Files.readString(Path.of("../README.md"));
    assertThat(readme).contains(body.strip());
  }

  @Test
  void demoServerAnswersBothToolsOverHttp() throws Exception {
    McpServer server = Demo.server();
    try (McpHttpServer http = McpHttpServer.builder(server).port(0).start()) {
      HttpClient client = HttpClient.newHttpClient();
      HttpResponse<String> init = client.send(post(http.endpoint(), null,
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
              + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
              + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}"),
          HttpResponse.BodyHandlers.ofString());
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      JsonNode echo = call(client, http.endpoint(), session,
          "{\"name\":\"echo\",\"arguments\":{\"text\":\"readme\"}}");
      assertThat(echo.get("content").get(0).get("text").asString()).isEqualTo("readme");
      JsonNode now = call(client, http.endpoint(), session, "{\"name\":\"now\"}");
      Instant reported = Instant.parse(now.get("content").get(0).get("text").asString());
      assertThat(reported).isBetween(Instant.now().minusSeconds(60), Instant.now());
    } finally {
      server.close();
    }
  }

  static JsonNode call(HttpClient client, URI endpoint, String session, String params)
      throws Exception {
    HttpResponse<String> r = client.send(post(endpoint, session,
        "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":" + params + "}"),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return McpJson.standard().parse(r.body()).get("result");
  }

  static HttpRequest post(URI endpoint, String session, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(endpoint)
        .header("Content-Type", "application/json").header("Accept", ACCEPT)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b.build();
  }
}
