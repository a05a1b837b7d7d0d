package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link McpServlet} in a container that mounts it under a context path (as a WAR or Spring
 * Boot's {@code server.servlet.context-path} does): its paths are the container's, below the
 * context, and the health check answers there and nowhere else.
 */
class ContextPathTest {

  static McpServer server;
  static Server jetty;
  static int port;

  @BeforeAll
  static void start() throws Exception {
    server = McpServer.builder()
        .tool(Tool.builder("echo").build(), (ctx, args) -> CallToolResult.text("echoed"))
        .build();
    McpServlet servlet = McpServlet.builder(server).path("/mcp").healthPath("/health")
        .loopbackOnly(true).build();
    jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/app");
    ServletHolder holder = new ServletHolder("mcp", servlet);
    holder.setAsyncSupported(true);
    context.addServlet(holder, "/*");
    jetty.setHandler(context);
    jetty.start();
    port = connector.getLocalPort();
  }

  @AfterAll
  static void stop() throws Exception {
    jetty.stop();
    server.close();
  }

  static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}";
  static final Map<String, String> HEADERS = Map.of("Content-Type", "application/json",
      "Accept", "application/json, text/event-stream");

  @Test
  void theEndpointAndTheHealthCheckLiveBelowTheContext() throws Exception {
    RawHttp.Response health = RawHttp.exchange(port, "GET", "/app/health", Map.of(), null);
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.header("content-type")).startsWith("application/json");
    assertThat(health.header("content-length")).isEqualTo("15");
    assertThat(health.body()).isEqualTo("{\"status\":\"ok\"}");

    RawHttp.Response init = RawHttp.exchange(port, "POST", "/app/mcp", HEADERS,
        HttpGateTest.INIT);
    assertThat(init.status()).isEqualTo(200);
    assertThat(init.header("mcp-session-id")).isNotBlank();
  }

  @Test
  void theContextItselfIsNotPartOfThePathsTheServletAnswers() throws Exception {
    // inside the context, the servlet's own paths without the context are not the endpoint
    assertThat(RawHttp.exchange(port, "POST", "/app/app/mcp", HEADERS, PING).status())
        .isEqualTo(404);
    assertThat(RawHttp.exchange(port, "GET", "/app/app/health", Map.of(), null).status())
        .isEqualTo(404);
    // the health check answers GET only
    assertThat(RawHttp.exchange(port, "POST", "/app/health", HEADERS, PING).status())
        .isEqualTo(404);
  }
}
