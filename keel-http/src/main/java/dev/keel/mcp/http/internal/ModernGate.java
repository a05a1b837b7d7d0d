package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.server.transport.ServerEngine;
import jakarta.servlet.http.HttpServletRequest;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The header checks of a stateless (2026-07-28) request, before authentication: the headers
 * that mirror the body ({@code Mcp-Method}, {@code Mcp-Name}, {@code MCP-Protocol-Version},
 * {@code Mcp-Param-*}) must match it, so that nothing routing on headers can be told one thing
 * while the server executes another.
 */
final class ModernGate {

  /** A refusal: the HTTP status and the JSON-RPC error to answer with. */
  record Refusal(int status, int code, String message, JsonNode data) {}

  private static final Pattern BASE64 = Pattern.compile("[A-Za-z0-9+/]*={0,2}");
  private static final String SENTINEL_START = "=?base64?";
  private static final String SENTINEL_END = "?=";

  private ModernGate() {}

  /** Returns true when a notification speaks the stateless era (its headers or {@code _meta}). */
  static boolean isModern(HttpServletRequest req, JsonRpcNotification notification) {
    if (req.getHeader("Mcp-Method") != null
        || ProtocolVersion.isModern(req.getHeader("MCP-Protocol-Version"))) {
      return true;
    }
    JsonNode meta = notification.params() == null ? null : notification.params().get("_meta");
    return meta != null && meta.has(MetaKeys.PROTOCOL_VERSION);
  }

  /** Returns true when the request speaks the stateless era. */
  static boolean isModern(HttpServletRequest req, JsonRpcRequest request) {
    if (request.method().equals("server/discover")
        || request.method().equals("subscriptions/listen")
        || req.getHeader("Mcp-Method") != null
        || ProtocolVersion.isModern(req.getHeader("MCP-Protocol-Version"))) {
      return true;
    }
    JsonNode meta = request.params() == null ? null : request.params().get("_meta");
    return meta != null && meta.has(MetaKeys.PROTOCOL_VERSION);
  }

  /** Returns why the request is refused, or empty when its headers are in order. */
  static Optional<Refusal> check(HttpServletRequest req, JsonRpcRequest request,
      ServerEngine engine) {
    String method = trimmed(req.getHeader("Mcp-Method"));
    if (method == null) {
      return mismatch("Missing Mcp-Method header");
    }
    if (!method.equals(request.method())) {
      return mismatch("Mcp-Method header does not match the request body");
    }
    ObjectNode params = request.params() == null ? McpJson.object() : request.params();
    JsonNode source = nameSource(request.method(), params);
    if (source != null && !source.isNull() && !source.isString()) {
      // A malformed parameter is the client's error (-32602), not a header mismatch, and never
      // a value to convert: Jackson's asString() throws on an object (issue 14, finding 12).
      return Optional.of(new Refusal(400, ErrorCodes.INVALID_PARAMS, "Invalid params: "
          + nameField(request.method()) + " must be a string", null));
    }
    String nameSource = source == null || source.isNull() ? null : source.stringValue();
    if (nameSource != null || namedMethod(request.method())) {
      String name = trimmed(req.getHeader("Mcp-Name"));
      if (name == null) {
        return mismatch("Missing Mcp-Name header");
      }
      Optional<String> decoded = decode(name);
      if (decoded.isEmpty()) {
        return mismatch("Mcp-Name header is not valid");
      }
      if (!decoded.get().equals(nameSource)) {
        return mismatch("Mcp-Name header does not match the request body");
      }
    }
    JsonNode meta = params.get("_meta");
    JsonNode version = meta == null ? null : meta.get(MetaKeys.PROTOCOL_VERSION);
    JsonNode caps = meta == null ? null : meta.get(MetaKeys.CLIENT_CAPABILITIES);
    if (version == null || !version.isString() || caps == null || !caps.isObject()) {
      return Optional.of(new Refusal(400, ErrorCodes.INVALID_PARAMS, "Invalid params: _meta "
          + "must carry " + MetaKeys.PROTOCOL_VERSION + " and " + MetaKeys.CLIENT_CAPABILITIES,
          null));
    }
    String header = trimmed(req.getHeader("MCP-Protocol-Version"));
    if (header == null) {
      return mismatch("Missing MCP-Protocol-Version header");
    }
    if (!header.equals(version.stringValue())) {
      return mismatch("MCP-Protocol-Version header does not match _meta protocolVersion");
    }
    if (!ProtocolVersion.isModern(header)) {
      ObjectNode data = McpJson.object();
      ProtocolVersion.MODERN.forEach(data.putArray("supported")::add);
      data.put("requested", Text.safe(header));
      return Optional.of(new Refusal(400, ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
          "Unsupported protocol version", data));
    }
    if (request.method().equals("tools/call") && params.path("name").isString()) {
      Optional<ObjectNode> schema = engine.toolInputSchema(params.get("name").stringValue());
      if (schema.isPresent()) {
        return checkParamHeaders(req, schema.get(), params.get("arguments"));
      }
    }
    return Optional.empty();
  }

  private static boolean namedMethod(String method) {
    return method.equals("tools/call") || method.equals("prompts/get")
        || method.equals("resources/read") || method.equals("tasks/get")
        || method.equals("tasks/update") || method.equals("tasks/cancel");
  }

  /** Returns the body field {@code Mcp-Name} mirrors for {@code method}, or null. */
  private static String nameField(String method) {
    return switch (method) {
      case "tools/call", "prompts/get" -> "name";
      case "resources/read" -> "uri";
      case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId";
      default -> null;
    };
  }

  private static JsonNode nameSource(String method, ObjectNode params) {
    String field = nameField(method);
    return field == null ? null : params.get(field);
  }

  /** {@code x-mcp-header} arguments must be mirrored exactly into {@code Mcp-Param-*}. */
  private static Optional<Refusal> checkParamHeaders(HttpServletRequest req, ObjectNode schema,
      JsonNode arguments) {
    List<Map.Entry<String, List<String>>> annotated = new ArrayList<>();
    collect(schema, new ArrayList<>(), annotated, 0);
    for (Map.Entry<String, List<String>> entry : annotated) {
      String headerName = "Mcp-Param-" + entry.getKey();
      String header = req.getHeader(headerName);
      JsonNode value = arguments;
      for (String step : entry.getValue()) {
        value = value == null ? null : value.get(step);
      }
      if (value == null || value.isNull()) {
        if (header != null) {
          return mismatch(headerName + " was sent without a value in the body");
        }
        continue;
      }
      if (header == null) {
        return mismatch("Missing " + headerName + " header");
      }
      Optional<String> decoded = decode(header.strip());
      if (decoded.isEmpty()) {
        return mismatch(headerName + " header is not valid");
      }
      if (!matches(decoded.get(), value)) {
        return mismatch(headerName + " header does not match the request body");
      }
    }
    return Optional.empty();
  }

  private static void collect(JsonNode schema, List<String> path,
      List<Map.Entry<String, List<String>>> out, int depth) {
    JsonNode properties = schema.get("properties");
    if (properties == null || !properties.isObject() || depth > 16) {
      return;
    }
    for (Map.Entry<String, JsonNode> p : properties.properties()) {
      List<String> here = new ArrayList<>(path);
      here.add(p.getKey());
      JsonNode header = p.getValue().get("x-mcp-header");
      if (header != null && header.isString()) {
        out.add(Map.entry(header.stringValue(), here));
      }
      collect(p.getValue(), here, out, depth + 1);
    }
  }

  private static boolean matches(String header, JsonNode value) {
    if (value.isString()) {
      return header.equals(value.stringValue());
    }
    if (value.isBoolean()) {
      return header.equals(value.booleanValue() ? "true" : "false");
    }
    if (value.isNumber()) {
      try {
        return new BigDecimal(header).compareTo(value.decimalValue()) == 0;
      } catch (NumberFormatException e) {
        return false;
      }
    }
    return false;
  }

  /**
   * Decodes a header value: {@code =?base64?…?=} is strict Base64 of UTF-8 text, anything else is
   * literal. Empty when the encoding is malformed or the plain value holds control characters.
   */
  static Optional<String> decode(String value) {
    if (value.startsWith(SENTINEL_START) && value.endsWith(SENTINEL_END)
        && value.length() >= SENTINEL_START.length() + SENTINEL_END.length()) {
      String b64 = value.substring(SENTINEL_START.length(),
          value.length() - SENTINEL_END.length());
      if (b64.length() % 4 != 0 || !BASE64.matcher(b64).matches()) {
        return Optional.empty();
      }
      try {
        return Optional.of(new String(Base64.getDecoder().decode(b64), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return Optional.empty();
      }
    }
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return Optional.empty();
      }
    }
    return Optional.of(value);
  }

  private static String trimmed(String header) {
    return header == null ? null : header.strip();
  }

  private static Optional<Refusal> mismatch(String message) {
    return Optional.of(new Refusal(400, ErrorCodes.HEADER_MISMATCH, "Header mismatch: "
        + message, null));
  }
}
