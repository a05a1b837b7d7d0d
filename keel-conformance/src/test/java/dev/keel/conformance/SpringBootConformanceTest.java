package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.examples.spring.fixtures.FixturesApplication;
import dev.keel.mcp.core.McpJson;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

/**
 * Both official conformance suites through {@code keel-spring-boot-starter}: the example
 * application ({@code examples/spring-boot-server}) serves Keel's fixtures from its own
 * {@code McpServer} bean on Tomcat, in this JVM, on 127.0.0.1 and a free port. The same
 * scores as against {@code keel fixtures} (0.1.16 32/32; 0.2.0-alpha.12 37/37 with the 3
 * pending scenarios and the tasks extension), then Keel in Actuator's health and metrics.
 */
@OneJvm
class SpringBootConformanceTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void bothSuitesPassThroughTheSpringBootStarter() throws Exception {
    try (ConfigurableApplicationContext app = new SpringApplicationBuilder(
        FixturesApplication.class).properties("server.port=0", "server.address=127.0.0.1",
            "spring.main.banner-mode=off").run()) {
      String base = "http://127.0.0.1:" + app.getEnvironment().getProperty("local.server.port");
      ConformanceSuiteTest.bothSuitesPass(base + "/mcp", "spring-boot");

      JsonNode health = get(base + "/actuator/health");
      assertThat(health.path("components").path("keel").path("status").asString())
          .as("Keel's health: %s", health).isEqualTo("UP");
      assertThat(health.path("components").path("keel").path("details").path("server")
          .asString()).startsWith("keel-fixtures ");
      List<String> meters = new ArrayList<>();
      get(base + "/actuator/metrics").path("names").forEach(n -> meters.add(n.asString()));
      assertThat(meters).contains("mcp.server.operation.duration", "keel.server.sessions",
          "keel.server.requests.in_flight", "keel.server.cancellations");
      JsonNode calls = get(base + "/actuator/metrics/mcp.server.operation.duration"
          + "?tag=mcp.method.name:tools/call");
      assertThat(calls.path("measurements").get(0).path("value").asDouble())
          .as("the suites' tool calls were timed").isGreaterThan(30);
    }
  }

  private static JsonNode get(String url) throws Exception {
    HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(url)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(url + ": " + response.body()).isEqualTo(200);
    return McpJson.standard().parse(response.body());
  }
}
