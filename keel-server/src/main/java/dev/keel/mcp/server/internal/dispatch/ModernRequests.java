package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.McpMethod;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.mrtr.MrtrRound;
import dev.keel.mcp.server.internal.mrtr.RequestStateSealer;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The stateless era (2026-07-28): which requests belong to it, what their {@code _meta} says,
 * and how their results and errors are shaped.
 */
final class ModernRequests {

  private ModernRequests() {}

  /**
   * Reads the request's {@code _meta} into a view.
   *
   * @throws McpException {@code -32602} when a required key is missing, {@code -32022} for an
   *     unsupported version
   */
  static RequestView view(ServerCore core, JsonRpcRequest request, Principal principal) {
    JsonNode meta = request.params() == null ? null : request.params().get("_meta");
    JsonNode version = meta == null ? null : meta.get(MetaKeys.PROTOCOL_VERSION);
    JsonNode caps = meta == null ? null : meta.get(MetaKeys.CLIENT_CAPABILITIES);
    if (version == null || !version.isString() || caps == null || !caps.isObject()) {
      throw McpException.invalidParams("Invalid params: _meta must carry "
          + MetaKeys.PROTOCOL_VERSION + " and " + MetaKeys.CLIENT_CAPABILITIES);
    }
    if (!ProtocolVersion.isModern(version.stringValue())) {
      throw unsupportedVersion(version.stringValue());
    }
    ClientCapabilities capabilities =
        ParsedMeta.bind(core.json(), caps, ClientCapabilities.class);
    Implementation info = null;
    JsonNode infoNode = meta.get(MetaKeys.CLIENT_INFO);
    if (infoNode != null && infoNode.isObject()) {
      try {
        info = ParsedMeta.bind(core.json(), infoNode, Implementation.class);
      } catch (McpException e) {
        info = null; // clientInfo is informational: a malformed one is ignored, not fatal
      }
    }
    LoggingLevel threshold = null;
    JsonNode level = meta.get(MetaKeys.LOG_LEVEL);
    if (level != null && level.isString()) {
      try {
        threshold = LoggingLevel.fromWire(level.stringValue());
      } catch (IllegalArgumentException e) {
        throw McpException.invalidParams("Invalid params: unknown log level");
      }
    }
    MrtrRound round = McpMethod.of(request.method()).map(McpMethod::inputRounds).orElse(false)
        ? round(core, request, principal) : null;
    return new RequestView(WireCodec.MODERN, null, version.stringValue(), capabilities, info, threshold,
        round);
  }

  /** Opens the {@code requestState} (if any) and merges this round's {@code inputResponses}. */
  private static MrtrRound round(ServerCore core, JsonRpcRequest request, Principal principal) {
    ObjectNode params = request.params();
    ObjectNode available = McpJson.object();
    int round = 1;
    JsonNode state = params.get("requestState");
    if (state != null) {
      RequestStateSealer.Opened opened = core.requestStates().open(state,
          principal.fingerprint(), request.method(), RequestStateSealer.digest(params));
      available.setAll(opened.answers());
      round = opened.round();
    }
    if (params.has("inputResponses")) {
      JsonNode responses = params.get("inputResponses");
      if (!(responses instanceof ObjectNode object)) {
        throw McpException.invalidParams("Invalid params: inputResponses must be an object");
      }
      object.properties().forEach(e -> available.set(e.getKey(), e.getValue()));
    }
    if (round > core.maxInputRounds()) {
      throw McpException.invalidParams("Too many input rounds");
    }
    return new MrtrRound(round, available);
  }

  static McpException unsupportedVersion(String requested) {
    ObjectNode data = McpJson.object();
    ProtocolVersion.MODERN.forEach(data.putArray("supported")::add);
    data.put("requested", requested);
    return new McpException(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
        "Unsupported protocol version", data);
  }

  /** Adds what every stateless result carries: {@code resultType}, server info, cache hints. */
  static JsonNode complete(ServerCore core, String method, JsonNode result) {
    if (!(result instanceof ObjectNode object)) {
      return result;
    }
    if (!object.has("resultType")) {
      object.put("resultType", "complete");
    }
    decorate(core, object);
    CacheHint hint = core.cacheHints().get(method);
    if (hint != null && "complete".equals(object.path("resultType").asString(""))) {
      object.put("ttlMs", hint.ttlMillis());
      object.put("cacheScope", hint.scope());
    }
    return object;
  }

  /** Returns an {@code input_required} result for the questions an attempt ended with. */
  static ObjectNode inputRequired(ServerCore core, JsonRpcRequest request, Principal principal,
      MrtrRound round, ObjectNode inputRequests) {
    if (round.round() + 1 > core.maxInputRounds()) {
      throw McpException.invalidParams("Too many input rounds");
    }
    ObjectNode result = McpJson.object();
    result.put("resultType", "input_required");
    result.set("inputRequests", inputRequests);
    result.put("requestState", core.requestStates().seal(principal.fingerprint(),
        request.method(), RequestStateSealer.digest(request.params()), round.round() + 1,
        round.consumed()));
    decorate(core, result);
    return result;
  }

  private static void decorate(ServerCore core, ObjectNode result) {
    JsonNode existing = result.get("_meta");
    ObjectNode meta = existing instanceof ObjectNode o ? o : result.putObject("_meta");
    meta.set(MetaKeys.SERVER_INFO, ParsedMeta.serverInfo(core.json(), core.info()));
  }

  /** Rewrites legacy-only error codes: resource not found is -32602 with data.uri. */
  static JsonRpcError error(McpException e) {
    if (e.code() == ErrorCodes.RESOURCE_NOT_FOUND) {
      return new JsonRpcError(ErrorCodes.INVALID_PARAMS, e.getMessage(), e.data());
    }
    return e.toError();
  }
}
