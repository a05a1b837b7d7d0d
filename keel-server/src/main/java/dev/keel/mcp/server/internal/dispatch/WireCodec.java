package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.protocol.Era;
import tools.jackson.databind.JsonNode;

/**
 * One era on the wire, chosen once per request from its era: how answers look (a legacy result
 * is sent as the handler made it, a stateless one carries {@code resultType}, server info and
 * cache hints; errors take the era's shape), how a handler's questions reach the client, and
 * the era's tasks. Handlers and method families build one result and never ask which era it is
 * for.
 */
interface WireCodec {

  /** Shapes a handler's result of {@code method}. */
  JsonNode result(ServerCore core, String method, JsonNode result);

  /** Shapes an error. */
  JsonRpcError error(McpException e);

  /** Returns how a request's handler asks the client. */
  Asking asking();

  /** Returns the era's tasks. */
  TaskDialect tasks();

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

    @Override
    public Asking asking() {
      return Asking.BY_REQUEST;
    }

    @Override
    public TaskDialect tasks() {
      return TaskDialect.LEGACY;
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

    @Override
    public Asking asking() {
      return Asking.BY_ROUND;
    }

    @Override
    public TaskDialect tasks() {
      return TaskDialect.STATELESS;
    }
  };

  /** Returns the codec of an era. */
  static WireCodec of(Era era) {
    return era == Era.MODERN ? MODERN : LEGACY;
  }
}
