package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.HeaderMirror;
import dev.keel.mcp.core.protocol.McpMethod;
import java.util.Optional;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The header checks of a stateless (2026-07-28) request, once it is authenticated: the headers
 * that mirror the body ({@code Mcp-Method}, {@code Mcp-Name}, {@code MCP-Protocol-Version},
 * {@code Mcp-Param-*}) must match it, so that nothing routing on headers can be told one thing
 * while the server executes another.
 */
final class ModernGate {

  /** A refusal: the HTTP status and the JSON-RPC error to answer with. */
  record Refusal(int status, int code, String message, JsonNode data) {}

  private ModernGate() {}

  /**
   * Returns why the request is refused, or empty when its headers are in order.
   *
   * @param headers a header's first value by its name (any case), null when absent
   */
  static Optional<Refusal> check(UnaryOperator<String> headers, JsonRpcRequest request,
      ObjectNode toolInputSchema) {
    ObjectNode params = request.params() == null ? McpJson.object() : request.params();
    JsonNode source = HeaderMirror.target(request);
    if (source != null && !source.isString()) {
      // A malformed parameter is the client's error (-32602), not a header mismatch, and never
      // a value to convert: Jackson's asString() throws on an object (issue 14, finding 12).
      return Optional.of(new Refusal(400, ErrorCodes.INVALID_PARAMS, "Invalid params: "
          + McpMethod.of(request.method()).map(McpMethod::targetParam).orElse("name")
          + " must be a string", null));
    }
    Optional<String> mismatch = HeaderMirror.mismatch(headers, request, toolInputSchema);
    if (mismatch.isPresent()) {
      return mismatch(mismatch.get());
    }
    JsonNode meta = params.get("_meta");
    JsonNode version = meta == null ? null : meta.get(MetaKeys.PROTOCOL_VERSION);
    JsonNode caps = meta == null ? null : meta.get(MetaKeys.CLIENT_CAPABILITIES);
    if (version == null || !version.isString() || caps == null || !caps.isObject()) {
      return Optional.of(new Refusal(400, ErrorCodes.INVALID_PARAMS, "Invalid params: _meta "
          + "must carry " + MetaKeys.PROTOCOL_VERSION + " and " + MetaKeys.CLIENT_CAPABILITIES,
          null));
    }
    String header = trimmed(headers.apply("MCP-Protocol-Version"));
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
    return Optional.empty();
  }

  private static String trimmed(String header) {
    return header == null ? null : header.strip();
  }

  private static Optional<Refusal> mismatch(String message) {
    return Optional.of(new Refusal(400, ErrorCodes.HEADER_MISMATCH, "Header mismatch: "
        + message, null));
  }
}
