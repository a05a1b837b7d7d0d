package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.protocol.Era;
import tools.jackson.databind.JsonNode;

/**
 * How answers look on the wire in one era, chosen once per request from its era: a legacy result
 * is sent as the handler made it, a stateless one carries {@code resultType}, server info and
 * cache hints; errors take the era's shape. Handlers and method families build one result and
 * never ask which era it is for.
 */
interface WireCodec {

  /** Shapes a handler's result of {@code method}. */
  JsonNode result(ServerCore core, String method, JsonNode result);

  /** Shapes an error. */
  JsonRpcError error(McpException e);

  /** The legacy sessions' wire: results and errors as they are. */
  WireCodec LEGACY = new WireCodec() {
    @Override
    public JsonNode result(ServerCore core, String method, JsonNode result) {
      return result;
    }

    @Override
    public JsonRpcError error(McpException e) {
      return e.toError();
    }
  };

  /** The stateless era's wire (2026-07-28). */
  WireCodec MODERN = new WireCodec() {
    @Override
    public JsonNode result(ServerCore core, String method, JsonNode result) {
      return ModernRequests.complete(core, method, result);
    }

    @Override
    public JsonRpcError error(McpException e) {
      return ModernRequests.error(e);
    }
  };

  /** Returns the codec of an era. */
  static WireCodec of(Era era) {
    return era == Era.MODERN ? MODERN : LEGACY;
  }
}
