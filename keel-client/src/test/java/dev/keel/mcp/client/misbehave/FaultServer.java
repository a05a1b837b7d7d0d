package dev.keel.mcp.client.misbehave;

import dev.keel.mcp.core.McpJson;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * An MCP server on 127.0.0.1 speaking both eras over raw sockets, so that a {@link FaultPolicy}
 * can break an answer at the byte level: drop the connection, never answer, cut a stream.
 *
 * <p>Well behaved by default. {@code initialize} starts a legacy session named in
 * {@code Mcp-Session-Id}; {@code server/discover} answers as a 2026-07-28 server; a request
 * naming an unknown session gets 404; notifications get 202, GET 405, DELETE ends the session.
 * The first {@code tools/call} after {@link #arm} goes to the policy, and so do the GETs that
 * resume its stream and the listening stream's GETs. One request per connection, each answer
 * with {@code Connection: close}: a connection the client keeps open is one it is still using.
 */
final class FaultServer implements AutoCloseable {

  private static final McpJson JSON = McpJson.standard();

  /**
   * One request.
   *
   * @param verb the HTTP method
   * @param headers the headers, lower-case names
   * @param body the parsed body, or null
   */
  record Request(String verb, Map<String, String> headers, ObjectNode body) {

    String method() {
      return body != null && body.path("method").isString() ? body.get("method").stringValue()
          : null;
    }

    /** The JSON-RPC id as JSON text, or null. */
    String id() {
      return body == null || body.get("id") == null ? null : body.get("id").toString();
    }

    String session() {
      return headers.get("mcp-session-id");
    }

    String lastEventId() {
      return headers.get("last-event-id");
    }
  }

  /** The connection a policy answers on. */
  final class Reply {
    private final Socket socket;
    final OutputStream out;
    private boolean chunked;

    private Reply(Socket socket) throws IOException {
      this.socket = socket;
      this.out = socket.getOutputStream();
    }

    /** Writes a complete answer with a body. */
    void body(int status, String contentType, String text) throws IOException {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      head(status, "Content-Type: " + contentType + "\r\nContent-Length: " + bytes.length
          + "\r\n");
      out.write(bytes);
      out.flush();
    }

    /** Writes a JSON-RPC answer as JSON. */
    void json(String text) throws IOException {
      body(200, "application/json", text);
    }

    /** Writes an answer without a body, with extra header lines (each ending in CRLF). */
    void empty(int status, String extraHeaders) throws IOException {
      head(status, extraHeaders + "Content-Length: 0\r\n");
      out.flush();
    }

    /** Starts an event stream (chunked). */
    void sse() throws IOException {
      head(200, "Content-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
          + "Transfer-Encoding: chunked\r\n");
      chunked = true;
      out.flush();
    }

    /** Writes raw event-stream text, flushed. */
    void raw(String text) throws IOException {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      try {
        out.write((Integer.toHexString(bytes.length) + "\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
      } catch (IOException e) {
        // the client may hang up before the policy is done writing: that counts too
        if (!closed) {
          hangUps.incrementAndGet();
        }
        throw e;
      }
    }

    /** Writes one event carrying {@code data}, with an id when {@code id} is not null. */
    void event(String id, String data) throws IOException {
      raw((id == null ? "" : "id: " + id + "\n") + "data: " + data + "\n\n");
    }

    /** Ends the stream cleanly (the last chunk); the connection closes after the policy. */
    void end() throws IOException {
      if (chunked) {
        out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        out.flush();
        chunked = false;
      }
    }

    /**
     * Blocks until the client closes the connection (or the server stops), and counts it when
     * the client did: how a policy that never finishes its answer learns the client gave up.
     */
    void awaitHangUp() throws IOException {
      InputStream in = socket.getInputStream();
      socket.setSoTimeout(0);
      try {
        while (in.read() >= 0) {
          // the client sends nothing more on this connection; anything is ignored
        }
        hangUps.incrementAndGet();
      } catch (IOException e) {
        if (!closed) {
          hangUps.incrementAndGet();
        }
      }
    }

    private void head(int status, String headers) throws IOException {
      out.write(("HTTP/1.1 " + status + " " + reason(status) + "\r\n" + headers
          + "Connection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  private final ServerSocket socket;
  private final AtomicInteger threadCount = new AtomicInteger();
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "fault-server-" + threadCount.incrementAndGet());
    t.setDaemon(true);
    return t;
  });
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final Set<String> live = ConcurrentHashMap.newKeySet();
  private final List<Request> seen = new CopyOnWriteArrayList<>();
  private final AtomicInteger sessions = new AtomicInteger();
  private final AtomicInteger calls = new AtomicInteger();
  private final AtomicInteger hangUps = new AtomicInteger();
  private final AtomicBoolean armed = new AtomicBoolean();
  private volatile FaultPolicy policy;
  private volatile String otherOrigin = "http://127.0.0.1:9/mcp";
  private volatile boolean closed;

  FaultServer() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/mcp");
  }

  /** Sends the next {@code tools/call} (and what follows from it) to {@code value}. */
  void arm(FaultPolicy value) {
    policy = value;
    armed.set(true);
  }

  /** Sets where a redirecting policy points. */
  void otherOrigin(String url) {
    otherOrigin = url;
  }

  String otherOrigin() {
    return otherOrigin;
  }

  /** Forgets a session: requests naming it get 404 from now on. */
  void expire(String session) {
    if (session != null) {
      live.remove(session);
    }
  }

  /** Returns every request so far, in arrival order. */
  List<Request> seen() {
    return List.copyOf(seen);
  }

  /** Returns how many sessions {@code initialize} started. */
  int sessionsStarted() {
    return sessions.get();
  }

  /** Returns how many connections the client closed while a policy held them open. */
  int hangUps() {
    return hangUps.get();
  }

  /** Returns how many connections are open. */
  int openConnections() {
    return open.size();
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        open.add(s);
        threads.execute(() -> serve(s));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      s.setSoTimeout(10_000);
      Request request = read(s.getInputStream());
      if (request == null) {
        return;
      }
      seen.add(request);
      Reply reply = new Reply(s);
      if (!byPolicy(request, reply)) {
        answer(request, reply);
      }
      reply.end();
    } catch (IOException | RuntimeException e) {
      // the client went away, or a policy broke the connection on purpose
    } finally {
      open.remove(s);
    }
  }

  private boolean byPolicy(Request request, Reply reply) throws IOException {
    FaultPolicy current = policy;
    if (current == null) {
      return false;
    }
    if (request.verb().equals("POST") && "tools/call".equals(request.method())
        && armed.compareAndSet(true, false)) {
      current.onCall(this, request, reply);
      return true;
    }
    if (request.verb().equals("GET") && request.lastEventId() != null
        && request.lastEventId().startsWith("call-")) {
      current.onResume(this, request, reply);
      return true;
    }
    if (request.verb().equals("GET")) {
      return current.onListen(this, request, reply);
    }
    return false;
  }

  private void answer(Request request, Reply reply) throws IOException {
    switch (request.verb()) {
      case "POST" -> post(request, reply);
      case "DELETE" -> {
        expire(request.session());
        reply.empty(200, "");
      }
      default -> reply.empty(405, "");
    }
  }

  private void post(Request request, Reply reply) throws IOException {
    String method = request.method();
    if ("initialize".equals(method)) {
      String session = "session-" + sessions.incrementAndGet();
      live.add(session);
      byte[] bytes = result(request.id(), "{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{\"tools\":{}},"
          + "\"serverInfo\":{\"name\":\"faulty\",\"version\":\"1.0.0\"}}")
          .getBytes(StandardCharsets.UTF_8);
      reply.head(200, "Content-Type: application/json\r\nMcp-Session-Id: " + session
          + "\r\nContent-Length: " + bytes.length + "\r\n");
      reply.out.write(bytes);
      return;
    }
    if (request.session() != null && !live.contains(request.session())) {
      reply.empty(404, "");
      return;
    }
    if (request.id() == null || method == null) {
      reply.empty(202, "");
      return;
    }
    reply.json(result(request.id(), normalResult(request)));
  }

  /** The well-behaved result of a request, in its era. */
  String normalResult(Request request) {
    boolean modern = request.session() == null;
    String result = switch (request.method()) {
      case "server/discover" -> "{\"supportedVersions\":[\"2026-07-28\"],"
          + "\"capabilities\":{\"tools\":{}},"
          + "\"serverInfo\":{\"name\":\"faulty\",\"version\":\"1.0.0\"}}";
      case "tools/list" -> "{\"tools\":[{\"name\":\"probe\",\"inputSchema\":"
          + "{\"type\":\"object\"}}]}";
      case "tools/call" -> "{\"content\":[{\"type\":\"text\",\"text\":\"ok "
          + calls.incrementAndGet() + "\"}]}";
      default -> "{}";
    };
    if (modern) {
      ObjectNode node = JSON.parseObject(result);
      node.put("resultType", "complete");
      result = node.toString();
    }
    return result;
  }

  /** Returns a JSON-RPC result message. */
  static String result(String id, String resultJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + resultJson + "}";
  }

  /** Returns a log notification, what a policy streams before (or instead of) the answer. */
  static String note(String text) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"
        + "{\"level\":\"info\",\"data\":\"" + text + "\"}}";
  }

  private static Request read(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    int b;
    while (matched < 4 && (b = in.read()) >= 0) {
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
      if (head.size() > 64 * 1024) {
        return null;
      }
    }
    if (matched < 4) {
      return null;
    }
    String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
    Map<String, String> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon > 0) {
        headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
            lines[i].substring(colon + 1).trim());
      }
    }
    int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
    ObjectNode body = null;
    if (length > 0) {
      JsonNode parsed = JSON.parse(new String(in.readNBytes(length), StandardCharsets.UTF_8));
      body = parsed instanceof ObjectNode o ? o : null;
    }
    return new Request(lines[0].split(" ")[0], headers, body);
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 202 -> "Accepted";
      case 307 -> "Temporary Redirect";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      default -> "Status";
    };
  }

  @Override
  public void close() throws IOException {
    closed = true;
    socket.close();
    for (Socket s : open) {
      s.close();
    }
    threads.shutdownNow();
    try {
      threads.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
