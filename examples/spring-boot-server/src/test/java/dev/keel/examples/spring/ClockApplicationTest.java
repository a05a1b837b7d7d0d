package dev.keel.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.examples.spring.clock.ClockApplication;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.ZonedDateTime;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

/**
 * The example's normal path over real HTTP: the annotated bean's tool answers in both eras, and
 * Keel shows in Actuator's health and metrics.
 */
@SpringBootTest(classes = ClockApplication.class,
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ClockApplicationTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Test
  void theAnnotatedToolAnswersAndKeelShowsInHealthAndMetrics() throws Exception {
    for (Era era : List.of(Era.LEGACY, Era.MODERN)) {
      try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(
          URI.create("http://127.0.0.1:" + port + "/mcp")).build()).era(era).connect()) {
        CallToolResult result = client.callTool("now",
            McpJson.standard().parse("{\"zone\":\"Europe/Paris\"}"));
        String text = ((TextContent) result.content().get(0)).text();
        assertThat(ZonedDateTime.parse(text).getZone().getId()).isEqualTo("Europe/Paris");
      }
    }
    JsonNode health = json("/actuator/health");
    assertThat(health.path("status").asString()).isEqualTo("UP");
    assertThat(health.path("components").path("keel").path("status").asString())
        .isEqualTo("UP");
    assertThat(health.path("components").path("keel").path("details").has("inFlightRequests"))
        .isTrue();
    JsonNode calls = json("/actuator/metrics/mcp.server.operation.duration?tag=gen_ai.tool.name:now");
    assertThat(calls.path("measurements").get(0).path("value").asDouble())
        .as("two calls of the tool were timed").isEqualTo(2.0);
  }

  private JsonNode json(String path) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + path)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(path + ": " + response.body()).isEqualTo(200);
    return McpJson.standard().parse(response.body());
  }
}
