package dev.keel.mcp.core.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A JSON-RPC notification: no id, and the receiver never answers it.
 *
 * @param method the method name
 * @param params the params object, or null
 */
public record JsonRpcNotification(String method, ObjectNode params) implements JsonRpcMessage {

  /** Checks the required members. */
  public JsonRpcNotification {
    Objects.requireNonNull(method, "method");
  }

  /** Always null: a notification has no id. */
  @Override
  public RequestId id() {
    return null;
  }
}
