package dev.keel.mcp.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.core.schema.Tool;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.JsonNode;

/**
 * The starter in a real application on Tomcat and on Jetty: one server from the properties, an
 * annotated bean and a customizer, served at {@code keel.mcp.path} in both eras, with Keel in
 * Actuator's health and Micrometer's meters.
 */
class KeelAutoConfigurationTest {

  @Configuration(proxyBeanMethods = false)
  static class OnTomcat {
    @Bean
    TomcatServletWebServerFactory tomcat() {
      return new TomcatServletWebServerFactory();
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OnJetty {
    @Bean
    JettyServletWebServerFactory jetty() {
      return new JettyServletWebServerFactory();
    }
  }

  @ParameterizedTest
  @ValueSource(classes = {OnTomcat.class, OnJetty.class})
  void servesAnnotatedBeansAndCustomizersInBothErasWithHealthAndMeters(Class<?> container)
      throws Exception {
    try (ConfigurableApplicationContext app = Apps.start(
        List.of(Apps.ToolsApp.class, Apps.OpenSecurity.class, container),
        "keel.mcp.path=/api/mcp", "keel.server.name=spring-test", "keel.server.version=2.0.0",
        "keel.server.instructions=Ask away", "keel.server.sessions.max=7")) {
      String server = app.getEnvironment().getProperty("local.server.port");
      assertThat(server).isNotNull();
      for (Era era : List.of(Era.LEGACY, Era.MODERN)) {
        try (McpClient client = Apps.client(app, "/api/mcp", era, t -> { })) {
          assertThat(client.era()).isEqualTo(era);
          assertThat(client.serverInfo().name()).isEqualTo("spring-test");
          assertThat(client.serverInfo().version()).isEqualTo("2.0.0");
          assertThat(client.listTools()).extracting(Tool::name)
              .contains("whoami", "thread", "echo");
          assertThat(Apps.call(client, "echo", "{\"text\":\"hi " + era + "\"}"))
              .isEqualTo("hi " + era);
          // Spring Security let the request through unauthenticated, on loopback: local.
          assertThat(Apps.call(client, "whoami", "{}")).isEqualTo("local -");
        }
      }
      // Exact path only: the default path is not Keel's here.
      assertThat(Apps.post(app, "/mcp", "{}").statusCode()).isEqualTo(404);
      assertThat(Apps.post(app, "/api/mcp/x", "{}").statusCode()).isEqualTo(404);

      JsonNode health = McpJson.standard().parse(Apps.get(app, "/actuator/health").body());
      assertThat(health.path("components").path("keel").path("status").asString())
          .isEqualTo("UP");
      assertThat(health.path("components").path("keel").path("details").path("server")
          .asString()).isEqualTo("spring-test 2.0.0");
      assertThat(health.path("components").path("keel").path("details").has("sessions"))
          .isTrue();
      JsonNode timer = McpJson.standard().parse(
          Apps.get(app, "/actuator/metrics/mcp.server.operation.duration").body());
      assertThat(timer.path("measurements").get(0).path("value").asDouble())
          .as("tools/call and the rest were timed").isGreaterThan(0);
      assertThat(Apps.get(app, "/actuator/metrics/keel.server.sessions").statusCode())
          .isEqualTo(200);
    }
  }
}
