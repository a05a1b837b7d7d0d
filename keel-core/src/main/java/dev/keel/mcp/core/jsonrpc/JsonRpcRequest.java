package dev.keel.mcp.core.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON-RPC request: it has an id and expects exactly one response.
 *
 * @param id the request id
 * @param method the method name
 * @param params the params object, or null when the request has none
 */
public record JsonRpcRequest(RequestId id, String method, ObjectNode params)
    implements JsonRpcMessage {

  /** Checks the required members. */
  public JsonRpcRequest {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(method, "method");
  }
}
