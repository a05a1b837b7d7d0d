package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.internal.ContainerErrors;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes the HTTP gate chain: a real Jetty (its in-memory connector, so the fuzzer runs
 * thousands of requests a second through the same parser, servlet and gates as a socket would)
 * serving McpServlet with authentication, a body limit and sessions. The fuzzer picks the method,
 * the path, every header the gates read (Host, Origin, Content-Type, Accept, Authorization,
 * Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method, Mcp-Name, Mcp-Param-*, Last-Event-ID) and the
 * body, or writes the request's bytes itself. Whatever it sends, the answer comes within two
 * seconds, is never a 500, and never carries a stack trace or a Java class name.
 */
class HttpGatesFuzzTest {

  private static final List<String> METHODS =
      List.of("POST", "GET", "DELETE", "PUT", "OPTIONS", "HEAD", "PATCH", "TRACE");
  private static final List<String> VERSIONS =
      List.of("2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "");
  private static final List<String> MCP_METHODS = List.of("initialize", "tools/call",
      "tools/list", "server/discover", "ping", "resources/read", "subscriptions/listen");
  private static final String[] BODIES = {
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
          + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":{\"text\":\"hi\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\""
          + ":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
  };

  private static final AtomicInteger JETTY_DOUBLE_RELEASES = new AtomicInteger();
  private static McpServer server;
  private static Server jetty;
  private static LocalConnector connector;

  @BeforeAll
  static void start() throws Exception {
    server = McpServer.builder()
        .tool(Tool.builder("echo").inputSchema("{\"type\":\"object\",\"properties\":"
            + "{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}").build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .build();
    McpServlet servlet = McpServlet.builder(server).path("/mcp").healthPath("/health")
        .loopbackOnly(true).maxBodyBytes(4096)
        .authenticator(req -> "Bearer s3cret".equals(req.getHeader("Authorization"))
            ? Optional.of(Principal.of("alice")) : Optional.empty())
        .build();
    jetty = new Server();
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    connector = new LocalConnector(jetty, new HttpConnectionFactory(http));
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    ServletHolder holder = new ServletHolder("mcp", servlet);
    holder.setAsyncSupported(true);
    context.addServlet(holder, "/*");
    context.setErrorHandler(ContainerErrors.forContext());
    jetty.setErrorHandler(ContainerErrors.forServer());
    jetty.setHandler(context);
    jetty.start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (JETTY_DOUBLE_RELEASES.get() > 0) {
      System.out.println("HttpGatesFuzzTest: Jetty released a request buffer twice "
          + JETTY_DOUBLE_RELEASES.get() + " times; the next connection was served each time");
    }
    jetty.stop();
    server.close();
  }

  @FuzzTest
  void sendAnything(FuzzedDataProvider data) throws Exception {
    byte[] request = data.consumeBoolean() ? shaped(data)
        : data.consumeRemainingAsBytes();
    try {
      exchange(request);
    } catch (IllegalStateException e) {
      if (!isJettyDoubleRelease(e)) {
        throw e;
      }
      // Jetty's own race (jetty#12939, docs/reliability.md): tolerated only when the server
      // is unharmed by it, which the next connection shows.
      JETTY_DOUBLE_RELEASES.incrementAndGet();
      try (LocalConnector.LocalEndPoint next = connector.connect()) {
        next.addInput("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        ByteBuffer answer = next.waitForResponse(false, 5, TimeUnit.SECONDS);
        assertThat(answer).as("the connection after Jetty's double release").isNotNull();
        assertThat(StandardCharsets.ISO_8859_1.decode(answer).toString())
            .startsWith("HTTP/1.1 200");
      }
    }
  }

  /**
   * The one exception the target lets pass: Jetty releasing a pooled request buffer twice
   * when a pipelined request races the client's close, thrown by Jetty's
   * {@code HttpConnection.releaseRequestBuffer} and by nothing of Keel's.
   */
  static boolean isJettyDoubleRelease(IllegalStateException e) {
    if (e.getMessage() == null || !e.getMessage().contains("already released")) {
      return false;
    }
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().startsWith("dev.keel.mcp.http.HttpGatesFuzzTest")) {
        break;
      }
      if (frame.getClassName().startsWith("dev.keel.")) {
        return false;
      }
    }
    for (StackTraceElement frame : e.getStackTrace()) {
      if (frame.getClassName().equals("org.eclipse.jetty.server.internal.HttpConnection")
          && frame.getMethodName().equals("releaseRequestBuffer")) {
        return true;
      }
    }
    return false;
  }

  @Test
  void onlyJettysOwnDoubleReleaseIsTolerated() {
    StackTraceElement jetty = new StackTraceElement(
        "org.eclipse.jetty.server.internal.HttpConnection", "releaseRequestBuffer", null, 1);
    StackTraceElement keel = new StackTraceElement(
        "dev.keel.mcp.http.internal.BodyRead", "onDataAvailable", null, 1);
    assertThat(isJettyDoubleRelease(withStack("already released", jetty))).isTrue();
    assertThat(isJettyDoubleRelease(withStack("already released"))).isFalse();
    assertThat(isJettyDoubleRelease(withStack("already released", keel, jetty))).isFalse();
    assertThat(isJettyDoubleRelease(withStack("something else", jetty))).isFalse();
  }

  private static IllegalStateException withStack(String message, StackTraceElement... frames) {
    IllegalStateException e = new IllegalStateException(message);
    e.setStackTrace(frames);
    return e;
  }

  private static void exchange(byte[] request) throws Exception {
    try (LocalConnector.LocalEndPoint endpoint = connector.connect()) {
      endpoint.addInput(ByteBuffer.wrap(request));
      // the client then closes its side, as a fuzzer's peer would: Jetty answers what it has
      // instead of waiting for the rest of a request cut short
      endpoint.addInputEOF();
      ByteBuffer whole = endpoint.waitForResponse(false, 2, TimeUnit.SECONDS);
      String response;
      if (whole != null) {
        response = StandardCharsets.ISO_8859_1.decode(whole).toString();
      } else {
        // not finished in two seconds: either Jetty is still waiting for the rest of a request
        // the fuzzer cut short (nothing written yet; the idle timeout ends it, which
        // SlowBodiesTest covers), or an event stream (a GET listening stream, an SSE answer) is
        // open, and then it must have begun as one
        response = endpoint.takeOutputString();
        if (response.isEmpty()) {
          return;
        }
        assertThat(response).as("an answer that never finished").startsWith("HTTP/1.1 200")
            .containsIgnoringCase("text/event-stream");
      }
      assertThat(response).doesNotStartWith("HTTP/1.1 500").doesNotStartWith("HTTP/1.0 500");
      // An answer may quote what the client sent (a refused protocol version is named back
      // to it, as the spec asks): a marker counts only when the request did not carry it.
      String sent = new String(request, StandardCharsets.ISO_8859_1)
          + new String(request, StandardCharsets.UTF_8);
      for (String leak : List.of("Exception", "\tat ", "org.eclipse.jetty", "dev.keel.")) {
        if (!sent.contains(leak)) {
          assertThat(response).as("an internal name in the answer").doesNotContain(leak);
        }
      }
    }
  }

  /** A request shaped like MCP traffic, with every part the fuzzer's choice. */
  private static byte[] shaped(FuzzedDataProvider data) {
    String method = data.consumeBoolean() ? data.pickValue(METHODS) : data.consumeString(8);
    String path = switch (data.consumeInt(0, 3)) {
      case 0 -> "/mcp";
      case 1 -> "/health";
      case 2 -> "/mcp?x=" + data.consumeString(20);
      default -> "/" + data.consumeString(30);
    };
    StringBuilder req = new StringBuilder(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    req.append("Host: ").append(data.consumeBoolean() ? "127.0.0.1" : data.consumeString(20))
        .append("\r\n");
    if (data.consumeBoolean()) {
      req.append("Origin: ").append(data.consumeBoolean() ? "http://127.0.0.1"
          : data.consumeString(30)).append("\r\n");
    }
    if (data.consumeBoolean()) {
      req.append("Authorization: ").append(data.consumeBoolean() ? "Bearer s3cret"
          : data.consumeString(30)).append("\r\n");
    }
    req.append("Content-Type: ").append(data.consumeBoolean() ? "application/json"
        : data.consumeString(40)).append("\r\n");
    req.append("Accept: ").append(data.consumeBoolean() ? "application/json, text/event-stream"
        : data.consumeString(40)).append("\r\n");
    if (data.consumeBoolean()) {
      req.append("MCP-Protocol-Version: ").append(data.consumeBoolean()
          ? data.pickValue(VERSIONS) : data.consumeString(12)).append("\r\n");
    }
    if (data.consumeBoolean()) {
      req.append("Mcp-Session-Id: ").append(data.consumeString(40)).append("\r\n");
    }
    if (data.consumeBoolean()) {
      req.append("Mcp-Method: ").append(data.consumeBoolean() ? data.pickValue(MCP_METHODS)
          : data.consumeString(20)).append("\r\n");
    }
    if (data.consumeBoolean()) {
      req.append("Mcp-Name: ").append(data.consumeString(20)).append("\r\n");
    }
    int params = data.consumeInt(0, 3);
    for (int i = 0; i < params; i++) {
      req.append("Mcp-Param-").append(data.consumeString(10)).append(": ")
          .append(data.consumeString(20)).append("\r\n");
    }
    if (data.consumeBoolean()) {
      req.append("Last-Event-ID: ").append(data.consumeString(30)).append("\r\n");
    }
    String body = data.consumeBoolean() ? BODIES[data.consumeInt(0, BODIES.length - 1)]
        : data.consumeRemainingAsString();
    byte[] bodyBytes = body.getBytes(StandardCharsets.UTF_8);
    req.append("Content-Length: ").append(bodyBytes.length).append("\r\n")
        .append("Connection: close\r\n\r\n");
    byte[] headBytes = req.toString().getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[headBytes.length + bodyBytes.length];
    System.arraycopy(headBytes, 0, all, 0, headBytes.length);
    System.arraycopy(bodyBytes, 0, all, headBytes.length, bodyBytes.length);
    return all;
  }
}
