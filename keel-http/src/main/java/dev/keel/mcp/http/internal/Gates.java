package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.ProtocolVersion;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cheap, unauthenticated checks every request passes first, in the order of SPEC §3.1:
 * path, health, rate limit, method, origin and host; and the protocol version header, which for
 * a POST is checked only once its body is read, after authentication (issue 14). Each refusal is
 * a plain JSON-RPC error with a precise status.
 */
final class Gates {

  private static final byte[] HEALTH = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
  private static final int MAX_SESSION_ID = 128;
  private static final String JSON = "application/json";

  private final HttpTransport.Options options;
  private final HttpErrors errors;

  private final dev.keel.mcp.server.cluster.Cluster cluster;

  Gates(HttpTransport.Options options, HttpErrors errors,
      dev.keel.mcp.server.cluster.Cluster cluster) {
    this.cluster = cluster;
    this.options = options;
    this.errors = errors;
  }

  /** Path, health, rate limit, method, origin. Returns false when it answered. */
  boolean passCommon(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String uri = req.getRequestURI();
    String context = req.getContextPath() == null ? "" : req.getContextPath();
    String path = uri.startsWith(context) ? uri.substring(context.length()) : uri;
    if (options.healthPath() != null && options.healthPath().equals(path)
        && "GET".equals(req.getMethod())) {
      byte[] health = HEALTH;
      if (cluster.shared()) {
        // degraded, not down: a node whose store is out of reach still serves what needs no
        // store (its own sessions, stateless calls); what needs it gets 503 on its own. A 503
        // here would make a balancer take every node out at once when the store goes.
        java.util.Optional<String> problem = cluster.problem();
        health = dev.keel.mcp.core.McpJson.object().put("status", problem.isPresent()
            ? "degraded" : "ok").put("node", cluster.nodeId())
            .put("store", problem.orElse("ok")).toString().getBytes(StandardCharsets.UTF_8);
      }
      resp.setStatus(200);
      resp.setContentType("application/json");
      resp.setContentLength(health.length);
      resp.getOutputStream().write(health);
      return false;
    }
    byte[] document = options.documents().get(path);
    if (document != null && "GET".equals(req.getMethod())) {
      // public metadata (RFC 9728): before any authentication, and readable from a browser
      resp.setStatus(200);
      resp.setContentType("application/json");
      resp.setHeader("Access-Control-Allow-Origin", "*");
      resp.setContentLength(document.length);
      resp.getOutputStream().write(document);
      return false;
    }
    if (!options.path().equals(path)) {
      return refuse(req, resp, 404, ErrorCodes.INVALID_REQUEST, "Not Found");
    }
    if (options.rateLimiter() != null) {
      Optional<Duration> wait = options.rateLimiter().admit(req);
      if (wait.isPresent()) {
        long seconds = Math.max(1, (wait.get().toMillis() + 999) / 1000);
        resp.setHeader("Retry-After", Long.toString(seconds));
        return refuse(req, resp, 429, ErrorCodes.SERVER_ERROR, "Too Many Requests");
      }
    }
    String method = req.getMethod();
    if (!method.equals("POST") && !method.equals("GET") && !method.equals("DELETE")) {
      resp.setHeader("Allow", "GET, POST, DELETE");
      return refuse(req, resp, 405, ErrorCodes.INVALID_REQUEST, "Method Not Allowed");
    }
    if (!options.origins().admits(req.getHeader("Origin"), req.getHeader("Host"))) {
      return refuse(req, resp, 403, ErrorCodes.INVALID_REQUEST, "Forbidden: origin not allowed");
    }
    return true;
  }

  /**
   * The checks of a POST that need only its head: a JSON content type and a declared length
   * within the limit. Returns false when it answered; the body is then never read, so the
   * connection closes after the answer.
   */
  boolean passPostHead(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (!isJson(req.getContentType())) {
      return refuse(req, resp, 415, ErrorCodes.INVALID_REQUEST,
          "Unsupported Media Type: Content-Type must be application/json");
    }
    int limit = options.maxBodyBytes();
    if (req.getContentLengthLong() > limit) {
      return refuse(req, resp, 413, ErrorCodes.INVALID_REQUEST,
          "Payload Too Large: the limit is " + limit + " bytes");
    }
    return true;
  }

  /**
   * Answers a request on its head alone and returns false. Its body is never read, so the
   * connection cannot carry another request: the answer says {@code Connection: close}. Jetty
   * would close it anyway, but after an answer that looked reusable, and a client that pooled
   * it would send its next request into the close.
   */
  private boolean refuse(HttpServletRequest req, HttpServletResponse resp, int status, int code,
      String message) throws IOException {
    BodyRead.closeIfBodyUnread(req, resp);
    errors.write(resp, status, code, message);
    return false;
  }

  /** A POST must accept JSON or SSE; returns false when it answered 406. */
  boolean passAccept(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    if (accepts(req, "application/json") || accepts(req, "text/event-stream")) {
      return true;
    }
    errors.write(resp, 406, ErrorCodes.INVALID_REQUEST,
        "Not Acceptable: accept application/json or text/event-stream");
    return false;
  }

  /** The MCP-Protocol-Version header, when present, must name a version Keel speaks. */
  boolean passVersion(HttpServletRequest req, HttpServletResponse resp) throws IOException {
    String version = req.getHeader("MCP-Protocol-Version");
    if (version == null || ProtocolVersion.isLegacy(version)) {
      return true;
    }
    ObjectNode data = JsonNodeFactory.instance.objectNode();
    ProtocolVersion.LEGACY.forEach(data.putArray("supported")::add);
    data.put("requested", dev.keel.mcp.core.Text.safe(version));
    errors.write(resp, 400, null, ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
        "Bad Request: unsupported protocol version", data);
    return false;
  }

  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semicolon = contentType.indexOf(';');
    int end = semicolon < 0 ? contentType.length() : semicolon;
    int start = trimStart(contentType, 0, end);
    int stop = trimEnd(contentType, start, end);
    return stop - start == JSON.length() && sameLetters(contentType, start, JSON, JSON.length());
  }

  /** The first index from {@code from} on that {@link String#trim} would keep. */
  private static int trimStart(String s, int from, int to) {
    while (from < to && s.charAt(from) <= ' ') {
      from++;
    }
    return from;
  }

  /** The end of {@code s[from, to)} once {@link String#trim} took its tail off. */
  private static int trimEnd(String s, int from, int to) {
    while (to > from && s.charAt(to - 1) <= ' ') {
      to--;
    }
    return to;
  }

  /**
   * True when {@code s} from {@code start} holds the first {@code length} characters of
   * {@code lower} (lower case), ASCII letters compared in any case. Only ASCII folds:
   * {@code toLowerCase} would also turn a few other letters (the Kelvin sign) into ASCII ones.
   */
  private static boolean sameLetters(String s, int start, String lower, int length) {
    for (int i = 0; i < length; i++) {
      char c = s.charAt(start + i);
      if (c >= 'A' && c <= 'Z') {
        c = (char) (c + ('a' - 'A'));
      }
      if (c != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Session ids are visible ASCII (0x21 to 0x7E), at most 128 characters. */
  static boolean validSessionId(String id) {
    if (id.isEmpty() || id.length() > MAX_SESSION_ID) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  /** True when the Accept header admits {@code type} (a missing header admits everything). */
  static boolean accepts(HttpServletRequest req, String type) {
    return accepts(req.getHeader("Accept"), type);
  }

  /** True when an {@code Accept} header's value admits {@code type} (lower case). */
  static boolean accepts(String accept, String type) {
    if (accept == null || accept.isBlank()) {
      return true;
    }
    int major = type.indexOf('/') + 1;
    // scanned in place rather than split: this runs on every POST, twice
    for (int from = 0; from <= accept.length(); ) {
      int comma = accept.indexOf(',', from);
      int end = comma < 0 ? accept.length() : comma;
      int semicolon = accept.indexOf(';', from);
      int start = trimStart(accept, from, semicolon >= 0 && semicolon < end ? semicolon : end);
      int stop = trimEnd(accept, start, semicolon >= 0 && semicolon < end ? semicolon : end);
      int length = stop - start;
      if (length == type.length() && sameLetters(accept, start, type, length)
          || length == 3 && accept.startsWith("*/*", start)
          || length == major + 1 && accept.charAt(stop - 1) == '*'
              && sameLetters(accept, start, type, major)) {
        return true;
      }
      from = end + 1;
    }
    return false;
  }
}
