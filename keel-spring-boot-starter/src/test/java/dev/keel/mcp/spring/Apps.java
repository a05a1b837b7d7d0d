package dev.keel.mcp.spring;

import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpTool;
import dev.keel.mcp.server.RequestContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.web.SecurityFilterChain;

/** The applications the starter's tests run: real Spring Boot, real containers, 127.0.0.1. */
final class Apps {

  private Apps() {}

  /** The tools of a plain annotated bean. */
  static final class Tools {
    @McpTool(description = "Who the call runs as, and its scopes")
    String whoami(RequestContext ctx) {
      return ctx.principal().id() + " " + (ctx.principal().scopes() == null ? "-"
          : new TreeSet<>(ctx.principal().scopes()));
    }

    @McpTool(description = "Whether the handler runs on a virtual thread", readOnly = true)
    String thread() {
      return Thread.currentThread().toString();
    }
  }

  /** An application with an annotated bean and a builder-made tool. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class ToolsApp {
    @Bean
    Tools tools() {
      return new Tools();
    }

    @Bean
    KeelServerCustomizer echo() {
      return b -> b.tool(Tool.builder("echo").description("Returns its text")
          .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
          .build(), (ctx, args) -> CallToolResult.text(args.path("text").asString("")));
    }
  }

  /** Spring Security present but letting every request through unauthenticated. */
  @SpringBootConfiguration(proxyBeanMethods = false)
  static class OpenSecurity {
    @Bean
    SecurityFilterChain open(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
          .csrf(AbstractHttpConfigurer::disable).build();
    }
  }

  /** Starts {@code sources} on 127.0.0.1 and a free port with {@code properties}. */
  static ConfigurableApplicationContext start(List<Class<?>> sources, String... properties) {
    List<String> all = new ArrayList<>(List.of("server.port=0", "server.address=127.0.0.1",
        "spring.main.banner-mode=off",
        "management.endpoints.web.exposure.include=health,metrics",
        "management.endpoint.health.show-details=always"));
    all.addAll(List.of(properties));
    return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
        .properties(all.toArray(String[]::new)).run();
  }

  static int port(ConfigurableApplicationContext context) {
    return Integer.parseInt(context.getEnvironment().getProperty("local.server.port"));
  }

  static McpClient client(ConfigurableApplicationContext context, String path, Era era,
      Consumer<StreamableHttpTransport.Builder> adjust) {
    StreamableHttpTransport.Builder transport = StreamableHttpTransport.builder(
        URI.create("http://127.0.0.1:" + port(context) + path));
    adjust.accept(transport);
    return McpClient.builder(transport.build()).era(era).connect();
  }

  static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  static String call(McpClient client, String tool, String arguments) {
    return text(client.callTool(tool, McpJson.standard().parse(arguments)));
  }

  static HttpResponse<String> get(ConfigurableApplicationContext context, String path)
      throws Exception {
    return HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port(context) + path)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(ConfigurableApplicationContext context, String path,
      String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port(context) + path))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** One client for every test: the JDK's HttpClient is closeable only from 21 on. */
  private static final HttpClient HTTP = HttpClient.newHttpClient();
}
