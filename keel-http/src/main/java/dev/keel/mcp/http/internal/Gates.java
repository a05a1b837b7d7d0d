package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.jsonrpc.InvalidMessageException;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The cheap, unauthenticated checks every request passes first, in the order of SPEC §3.1:
 * path, health, rate limit, method, origin and host, then for POST the body, then the protocol
 * version header. Each refusal is a plain JSON-RPC error with a precise status.
 */
final class Gates {

  private static final byte[] HEALTH = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
  private static final int MAX_SESSION_ID = 128;

  private final HttpTransport.Options options;
  private final HttpErrors errors;

  Gates(HttpTransport.Options options, HttpErrors errors) {
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
      resp.setStatus(200);
      resp.setContentType("application/json");
      resp.setContentLength(HEALTH.length);
      resp.getOutputStream().write(HEALTH);
      return false;
    }
    if (!options.path().equals(path)) {
      errors.write(resp, 404, ErrorCodes.INVALID_REQUEST, "Not Found");
      return false;
    }
    if (options.rateLimiter() != null) {
      Optional<Duration> wait = options.rateLimiter().admit(req);
      if (wait.isPresent()) {
        long seconds = Math.max(1, (wait.get().toMillis() + 999) / 1000);
        resp.setHeader("Retry-After", Long.toString(seconds));
        errors.write(resp, 429, ErrorCodes.SERVER_ERROR, "Too Many Requests");
        return false;
      }
    }
    String method = req.getMethod();
    if (!method.equals("POST") && !method.equals("GET") && !method.equals("DELETE")) {
      resp.setHeader("Allow", "GET, POST, DELETE");
      errors.write(resp, 405, ErrorCodes.INVALID_REQUEST, "Method Not Allowed");
      return false;
    }
    if (!options.origins().admits(req.getHeader("Origin"), req.getHeader("Host"))) {
      errors.write(resp, 403, ErrorCodes.INVALID_REQUEST, "Forbidden: origin not allowed");
      return false;
    }
    return true;
  }

  /** Content type, size and JSON of a POST body. Returns null when it answered. */
  JsonRpcMessage readMessage(HttpServletRequest req, HttpServletResponse resp,
      JsonRpcCodec codec) throws IOException {
    if (!isJson(req.getContentType())) {
      errors.write(resp, 415, ErrorCodes.INVALID_REQUEST,
          "Unsupported Media Type: Content-Type must be application/json");
      return null;
    }
    int limit = options.maxBodyBytes();
    if (req.getContentLengthLong() > limit) {
      errors.write(resp, 413, ErrorCodes.INVALID_REQUEST,
          "Payload Too Large: the limit is " + limit + " bytes");
      return null;
    }
    byte[] body = readAtMost(req.getInputStream(), limit, req.getContentLengthLong());
    if (body == null) {
      errors.write(resp, 413, ErrorCodes.INVALID_REQUEST,
          "Payload Too Large: the limit is " + limit + " bytes");
      return null;
    }
    try {
      return codec.decode(body);
    } catch (InvalidMessageException e) {
      errors.write(resp, 400, e.requestId(), e.code(), e.getMessage(), null);
      return null;
    }
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

  /**
   * Reads a body whose length the request declared ({@code declared} ≥ 0, already checked
   * against the limit) straight into an array of that size; any other body goes through
   * {@link #readAtMost(InputStream, int)}. The hot path of every POST: one exact allocation
   * instead of two zeroed 8 KiB buffers and a copy.
   */
  static byte[] readAtMost(InputStream in, int limit, long declared) throws IOException {
    if (declared < 0 || declared > limit) {
      return readAtMost(in, limit);
    }
    byte[] body = new byte[(int) declared];
    int n = in.readNBytes(body, 0, body.length);
    if (n < body.length) {
      // The peer sent less than it declared; what came is parsed (and refused) as it is.
      return java.util.Arrays.copyOf(body, n);
    }
    // A container keeps a body to its declared length; this read only confirms the end.
    int next = in.read();
    if (next < 0) {
      return body;
    }
    if (body.length + 1 > limit) {
      return null;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(body.length + 1024);
    out.write(body);
    out.write(next);
    byte[] rest = readAtMost(in, limit - body.length - 1);
    if (rest == null) {
      return null;
    }
    out.write(rest);
    return out.toByteArray();
  }

  /** Reads the body, or returns null as soon as it exceeds {@code limit} (limit+1 bytes read). */
  static byte[] readAtMost(InputStream in, int limit) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream(Math.min(limit, 8192));
    byte[] buffer = new byte[8192];
    long total = 0;
    while (true) {
      int want = (int) Math.min(buffer.length, (long) limit + 1 - total);
      if (want <= 0) {
        return null;
      }
      int n = in.read(buffer, 0, want);
      if (n < 0) {
        return out.toByteArray();
      }
      total += n;
      if (total > limit) {
        return null;
      }
      out.write(buffer, 0, n);
    }
  }

  static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String type = contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
    return type.equals("application/json");
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
    String accept = req.getHeader("Accept");
    if (accept == null || accept.isBlank()) {
      return true;
    }
    String major = type.substring(0, type.indexOf('/'));
    for (String part : accept.split(",")) {
      String media = part.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
      if (media.equals(type) || media.equals("*/*") || media.equals(major + "/*")) {
        return true;
      }
    }
    return false;
  }
}
