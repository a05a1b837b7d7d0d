package dev.keel.mcp.client.misbehave;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A legacy (2025-11-25) Streamable HTTP MCP server on 127.0.0.1 that tests make misbehave.
 *
 * <p>By default it is well behaved: {@code initialize} opens a session named in
 * {@code Mcp-Session-Id}, notifications get 202, GET gets 405 (no listening stream), DELETE ends
 * the session, a request naming an unknown session gets 404, and {@code tools/list},
 * {@code tools/call} and anything else get small JSON answers. A test installs a {@link Behavior}
 * that sees every request first and answers the ones it wants to answer itself. Every request is
 * recorded, with the session and credential it carried.
 */
final class FakeMcpServer implements AutoCloseable {

  private static final McpJson JSON = McpJson.standard();

  /**
   * One request as the server saw it.
   *
   * @param verb the HTTP method
   * @param method the JSON-RPC method, or null (a response, a GET, a DELETE)
   * @param id the JSON-RPC id as JSON text, or null
   * @param session the {@code Mcp-Session-Id} header, or null
   * @param authorization the {@code Authorization} header, or null
   * @param lastEventId the {@code Last-Event-ID} header, or null
   * @param body the parsed body, or null
   * @param protocolVersion the {@code MCP-Protocol-Version} header, or null
   */
  record Seen(String verb, String method, String id, String session, String authorization,
      String lastEventId, ObjectNode body, String protocolVersion) {

    boolean is(String rpcMethod) {
      return rpcMethod.equals(method);
    }
  }

  /** Answers a request itself (returns true) or leaves it to the default behaviour. */
  @FunctionalInterface
  interface Behavior {
    boolean answer(Seen request, HttpExchange exchange) throws Exception;
  }

  private final HttpServer http;
  private final ExecutorService threads;
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final Set<String> live = ConcurrentHashMap.newKeySet();
  private final AtomicInteger sessionCount = new AtomicInteger();
  private volatile Behavior behavior = (r, e) -> false;

  private FakeMcpServer() throws IOException {
    http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    AtomicInteger n = new AtomicInteger();
    threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "fake-mcp-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    http.setExecutor(threads);
    http.createContext("/", this::handle);
    http.start();
  }

  /** Starts a server on 127.0.0.1 and an ephemeral port. */
  static FakeMcpServer start() throws IOException {
    return new FakeMcpServer();
  }

  /** Returns the endpoint, {@code http://127.0.0.1:PORT/mcp}. */
  URI endpoint() {
    return URI.create("http://127.0.0.1:" + http.getAddress().getPort() + "/mcp");
  }

  /** Installs the behaviour that sees every request before the defaults. */
  void behave(Behavior value) {
    this.behavior = value;
  }

  /** Forgets a session: requests naming it get 404 from now on. */
  void expire(String session) {
    live.remove(session);
  }

  /** Returns every request so far, in arrival order. */
  List<Seen> seen() {
    return List.copyOf(seen);
  }

  /** Returns the JSON-RPC requests and notifications of this method, in arrival order. */
  List<Seen> seen(String rpcMethod) {
    return seen.stream().filter(s -> s.is(rpcMethod)).toList();
  }

  /** Returns the session ids handed out, in order. */
  int sessionsStarted() {
    return sessionCount.get();
  }

  @Override
  public void close() {
    http.stop(0);
    threads.shutdownNow();
    try {
      threads.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      Seen request = record(ex);
      if (behavior.answer(request, ex)) {
        return;
      }
      switch (request.verb()) {
        case "GET" -> ex.sendResponseHeaders(405, -1);
        case "DELETE" -> {
          if (request.session() != null) {
            live.remove(request.session());
          }
          ex.sendResponseHeaders(200, -1);
        }
        case "POST" -> post(request, ex);
        default -> ex.sendResponseHeaders(405, -1);
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException(e);
    }
  }

  private Seen record(HttpExchange ex) throws IOException {
    ObjectNode body = null;
    if (ex.getRequestMethod().equals("POST")) {
      byte[] bytes;
      try (InputStream in = ex.getRequestBody()) {
        bytes = in.readNBytes(1 << 20);
      }
      JsonNode parsed = JSON.parse(new String(bytes, StandardCharsets.UTF_8));
      body = parsed instanceof ObjectNode o ? o : null;
    }
    JsonNode method = body == null ? null : body.get("method");
    JsonNode id = body == null ? null : body.get("id");
    Seen request = new Seen(ex.getRequestMethod(),
        method != null && method.isString() ? method.stringValue() : null,
        id == null ? null : id.toString(),
        ex.getRequestHeaders().getFirst("Mcp-Session-Id"),
        ex.getRequestHeaders().getFirst("Authorization"),
        ex.getRequestHeaders().getFirst("Last-Event-ID"),
        body,
        ex.getRequestHeaders().getFirst("MCP-Protocol-Version"));
    seen.add(request);
    return request;
  }

  private void post(Seen request, HttpExchange ex) throws IOException {
    if (request.is("initialize")) {
      String session = "session-" + sessionCount.incrementAndGet();
      live.add(session);
      ex.getResponseHeaders().add("Mcp-Session-Id", session);
      json(ex, 200, result(request.id(), "{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{\"tools\":{}},"
          + "\"serverInfo\":{\"name\":\"misbehaving\",\"version\":\"1.0.0\"}}"));
      return;
    }
    if (request.session() == null) {
      ex.sendResponseHeaders(400, -1);
      return;
    }
    if (!live.contains(request.session())) {
      ex.sendResponseHeaders(404, -1);
      return;
    }
    if (request.id() == null || request.method() == null) {
      ex.sendResponseHeaders(202, -1);
      return;
    }
    String result = switch (request.method()) {
      case "tools/list" -> "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}";
      case "tools/call" -> "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}";
      default -> "{}";
    };
    json(ex, 200, result(request.id(), result));
  }

  // ------------------------------------------------------------------ answers for behaviours

  /** Returns a JSON-RPC result message. */
  static String result(String id, String resultJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + resultJson + "}";
  }

  /** Sends a JSON body. */
  static void json(HttpExchange ex, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", "application/json");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  /** Starts an SSE answer (chunked) and returns its body; the caller writes and closes it. */
  static OutputStream sse(HttpExchange ex) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "text/event-stream");
    ex.getResponseHeaders().set("Cache-Control", "no-cache");
    ex.sendResponseHeaders(200, 0);
    return ex.getResponseBody();
  }

  /** Writes one complete SSE event carrying {@code data} and flushes. */
  static void event(OutputStream out, String data) throws IOException {
    out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** Answers with an empty status. */
  static void status(HttpExchange ex, int status) throws IOException {
    ex.sendResponseHeaders(status, -1);
  }
}
