package dev.keel.bench.driver;

import java.nio.charset.StandardCharsets;

/**
 * The HTTP/1.1 requests the driver sends, as bytes. Each is one POST or DELETE on a keep-alive
 * connection, with the headers a Streamable HTTP client sends in its era.
 */
final class Wire {

  static final String LEGACY_VERSION = "2025-11-25";
  static final String MODERN_VERSION = "2026-07-28";
  private static final String CLIENT_INFO = "{\"name\":\"keel-bench\",\"version\":\"1\"}";

  /** How requests are shaped: which era, and whether a session is opened first. */
  enum Style {
    /** Legacy era: initialize opens a session, every request names it. */
    SESSION,
    /** Legacy era without a session: tools/call straight away (a stateless legacy server). */
    LEGACY_STATELESS,
    /** 2026-07-28: every request carries its _meta and the Mcp-Method/Mcp-Name headers. */
    MODERN
  }

  private final String host;
  private final String path;

  Wire(String host, int port, String path) {
    this.host = host + ":" + port;
    this.path = path;
  }

  byte[] initialize(long id) {
    return post(null, null, null, "{\"jsonrpc\":\"2.0\",\"id\":" + id
        + ",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"" + LEGACY_VERSION
        + "\",\"capabilities\":{},\"clientInfo\":" + CLIENT_INFO + "}}");
  }

  byte[] initialized(String session) {
    return post(session, LEGACY_VERSION, null,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  }

  /** A tools/call in {@code style}; {@code session} is used only by {@link Style#SESSION}. */
  byte[] call(Style style, String session, long id, String tool, String arguments) {
    switch (style) {
      case SESSION:
        return post(session, LEGACY_VERSION, null, callBody(id, tool, arguments, ""));
      case LEGACY_STATELESS:
        return post(null, LEGACY_VERSION, null, callBody(id, tool, arguments, ""));
      case MODERN:
        return post(null, MODERN_VERSION, "Mcp-Method: tools/call\r\nMcp-Name: " + tool + "\r\n",
            callBody(id, tool, arguments, ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\""
                + ":\"" + MODERN_VERSION + "\",\"io.modelcontextprotocol/clientCapabilities\":{},"
                + "\"io.modelcontextprotocol/clientInfo\":" + CLIENT_INFO + "}"));
      default:
        throw new IllegalArgumentException(style.name());
    }
  }

  /**
   * A legacy tools/call that asks for progress under {@code token}: the probe's blocking tool
   * reports progress once it runs, so the driver knows when to cancel.
   */
  byte[] callWithProgress(String session, long id, String tool, String arguments, String token) {
    return post(session, LEGACY_VERSION, null, callBody(id, tool, arguments,
        ",\"_meta\":{\"progressToken\":\"" + token + "\"}"));
  }

  /** A legacy notifications/cancelled; {@code probeKey} lets the probed server stamp it. */
  byte[] cancelled(String session, long requestId, String probeKey) {
    return post(session, LEGACY_VERSION, "X-Bench-Cancel: " + probeKey + "\r\n",
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
            + requestId + ",\"reason\":\"benchmark\"}}");
  }

  byte[] delete(String session) {
    StringBuilder b = new StringBuilder(160).append("DELETE ").append(path)
        .append(" HTTP/1.1\r\nHost: ").append(host).append("\r\n");
    if (session != null) {
      b.append("Mcp-Session-Id: ").append(session).append("\r\n");
    }
    b.append("MCP-Protocol-Version: ").append(LEGACY_VERSION).append("\r\n\r\n");
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  byte[] listen(String session) {
    return ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: text/event-stream\r\n"
        + "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: " + LEGACY_VERSION
        + "\r\n\r\n").getBytes(StandardCharsets.UTF_8);
  }

  private static String callBody(long id, String tool, String arguments, String meta) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"" + tool + "\",\"arguments\":" + arguments + meta + "}}";
  }

  private byte[] post(String session, String version, String extraHeaders, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    StringBuilder b = new StringBuilder(256 + body.length).append("POST ").append(path)
        .append(" HTTP/1.1\r\nHost: ").append(host)
        .append("\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream")
        .append("\r\nContent-Length: ").append(body.length).append("\r\n");
    if (session != null) {
      b.append("Mcp-Session-Id: ").append(session).append("\r\n");
    }
    if (version != null) {
      b.append("MCP-Protocol-Version: ").append(version).append("\r\n");
    }
    if (extraHeaders != null) {
      b.append(extraHeaders);
    }
    b.append("\r\n");
    byte[] headBytes = b.toString().getBytes(StandardCharsets.US_ASCII);
    byte[] all = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, all, 0, headBytes.length);
    System.arraycopy(body, 0, all, headBytes.length, body.length);
    return all;
  }
}
