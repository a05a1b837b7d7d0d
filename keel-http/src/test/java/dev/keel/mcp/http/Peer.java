package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * A raw test client of one Keel endpoint: every request names its bearer secret (null for none)
 * and its session id (null for none), and any other header as name/value pairs (a null value
 * removes a default header).
 */
final class Peer {

  static final String BOTH = "application/json, text/event-stream";
  static final String LATEST = "2025-11-25";
  static final String NOT_RESUMABLE = "2025-06-18";
  static final String ELICITATION = "{\"elicitation\":{}}";
  /** A well-formed id (43 base64url characters, like Keel's own) that no server issued. */
  static final String UNKNOWN_SESSION = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";

  final int port;

  Peer(int port) {
    this.port = port;
  }

  static String initializeBody(String version, String capabilities) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\""
        + version + "\",\"capabilities\":" + capabilities
        + ",\"clientInfo\":{\"name\":\"peer\",\"version\":\"1\"}}}";
  }

  static String request(Object id, String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\""
        + (params == null ? "" : ",\"params\":" + params) + "}";
  }

  static String notification(String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\""
        + (params == null ? "" : ",\"params\":" + params) + "}";
  }

  static String call(Object id, String tool) {
    return call(id, tool, "{}");
  }

  static String call(Object id, String tool, String arguments) {
    return request(id, "tools/call", "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + "}");
  }

  static String cancel(Object requestId) {
    return notification("notifications/cancelled", "{\"requestId\":" + requestId
        + ",\"reason\":\"test\"}");
  }

  static Map<String, String> headers(String bearer, String session, String... pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    map.put("Content-Type", "application/json");
    map.put("Accept", BOTH);
    if (bearer != null) {
      map.put("Authorization", "Bearer " + bearer);
    }
    if (session != null) {
      map.put("Mcp-Session-Id", session);
    }
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i + 1] == null) {
        map.remove(pairs[i]);
      } else {
        map.put(pairs[i], pairs[i + 1]);
      }
    }
    return map;
  }

  RawHttp.Response post(String bearer, String session, String body, String... pairs)
      throws IOException {
    return RawHttp.exchange(port, "POST", "/mcp", headers(bearer, session, pairs), body);
  }

  RawHttp.Response delete(String bearer, String session, String... pairs) throws IOException {
    return RawHttp.exchange(port, "DELETE", "/mcp", headers(bearer, session, pairs), null);
  }

  /** POSTs a request whose answer may be a stream. */
  SseClient postStream(String bearer, String session, String body, String... pairs)
      throws IOException {
    return SseClient.open(port, "POST", headers(bearer, session, pairs), body);
  }

  /** Opens a GET stream (or gets its refusal: see {@link SseClient#answer()}). */
  SseClient get(String bearer, String session, String... pairs) throws IOException {
    Map<String, String> h = headers(bearer, session, pairs);
    h.remove("Content-Type");
    if (!contains(pairs, "Accept")) {
      h.put("Accept", "text/event-stream");
    }
    return SseClient.open(port, "GET", h, null);
  }

  /** A GET expected to be refused: its status and fixed-length body. */
  RawHttp.Response getAnswer(String bearer, String session, String... pairs) throws IOException {
    try (SseClient sse = get(bearer, session, pairs)) {
      return sse.answer();
    }
  }

  /** Initializes a 2025-11-25 session without client capabilities. */
  String initialize(String bearer) throws IOException {
    return initialize(bearer, LATEST, "{}");
  }

  /** Initializes a session, checks the answer, and sends {@code notifications/initialized}. */
  String initialize(String bearer, String version, String capabilities, String... pairs)
      throws IOException {
    RawHttp.Response r = post(bearer, null, initializeBody(version, capabilities), pairs);
    assertThat(r.status()).as("initialize: %s", r.body()).isEqualTo(200);
    String session = r.header("mcp-session-id");
    assertThat(session).isNotBlank();
    RawHttp.Response ack = post(bearer, session, notification("notifications/initialized", null),
        pairs);
    assertThat(ack.status()).isEqualTo(202);
    return session;
  }

  /** A ping in a session: 200 when the session is there and the caller owns it. */
  int ping(String bearer, String session) throws IOException {
    return post(bearer, session, request(99, "ping", null)).status();
  }

  /**
   * Notifies a session until a listening stream takes it. A GET's head (and priming event) is
   * flushed just before the stream attaches to its session, so the first notify right after
   * the client sees the stream may find none yet; it then honestly returns false.
   */
  static void notifyWhenAttached(dev.keel.mcp.server.McpServer server, String session,
      String method, tools.jackson.databind.node.ObjectNode params) {
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
        .pollInterval(java.time.Duration.ofMillis(10))
        .until(() -> server.notify(session, method, params));
  }

  static JsonNode json(String text) {
    return McpJson.standard().parse(text);
  }

  static JsonNode json(SseClient.Event event) {
    return json(event.data());
  }

  static int errorCode(RawHttp.Response response) {
    return json(response.body()).get("error").get("code").asInt();
  }

  /** The text of the first content item of a tools/call result. */
  static String text(JsonNode response) {
    return response.get("result").get("content").get(0).get("text").asString();
  }

  /**
   * Returns the JSON-RPC response of a POSTed request, whether it came as plain JSON or as the
   * last message of a stream (messages before it, such as logs, are skipped).
   */
  static JsonNode response(SseClient sse, int timeoutMillis) throws IOException {
    RawHttp.Response head = sse.head();
    assertThat(head.status()).isEqualTo(200);
    if (head.header("content-type").startsWith("application/json")) {
      return json(sse.answer().body());
    }
    while (true) {
      JsonNode message = nextMessage(sse, timeoutMillis);
      if (!message.has("method")) {
        return message;
      }
    }
  }

  /** Reads events until one carries a JSON-RPC message (skipping priming events). */
  static JsonNode nextMessage(SseClient sse, int timeoutMillis) throws IOException {
    while (true) {
      SseClient.Event event = sse.nextWithin(timeoutMillis);
      assertThat(event).as("a message on the stream").isNotNull();
      if (!event.data().isEmpty()) {
        return json(event);
      }
    }
  }

  private static boolean contains(String[] pairs, String name) {
    for (int i = 0; i < pairs.length; i += 2) {
      if (pairs[i].equalsIgnoreCase(name)) {
        return true;
      }
    }
    return false;
  }
}
