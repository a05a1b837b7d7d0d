package dev.keel.mcp.core.jsonrpc;

/**
 * One JSON-RPC 2.0 message: a request, a notification, a result or an error.
 *
 * <p>Batches do not exist in MCP since 2025-06-18 and Keel never builds one.
 */
public sealed interface JsonRpcMessage
    permits JsonRpcRequest, JsonRpcNotification, JsonRpcResponse, JsonRpcErrorResponse {

  /** Returns the id this message carries, or null for a notification or an unparseable id. */
  RequestId id();
}
