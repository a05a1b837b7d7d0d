package dev.keel.mcp.core.engine;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.RequestId;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code notifications/cancelled}, the one message both sides send when they stop waiting on a
 * request of theirs, and read when the peer stops waiting on one it sent: made and read here so
 * that server and client agree on its shape.
 *
 * @param requestId the request no longer wanted
 * @param reason why, as the peer said it (untrusted text), or {@code "cancelled"}
 */
public record CancelledNotice(RequestId requestId, String reason) {

  /** The method name. */
  public static final String METHOD = "notifications/cancelled";

  /**
   * Reads a notice from a notification's params.
   *
   * @return the notice, or null when the params name no valid request id
   */
  public static CancelledNotice read(ObjectNode params) {
    RequestId id = params == null ? null : RequestId.fromJson(params.get("requestId"));
    if (id == null) {
      return null;
    }
    JsonNode reason = params.get("reason");
    return new CancelledNotice(id, reason != null && reason.isString()
        ? reason.stringValue() : "cancelled");
  }

  /** Returns the notification to send. */
  public JsonRpcNotification toNotification() {
    ObjectNode params = McpJson.object();
    params.set("requestId", requestId.isNumber()
        ? JsonNodeFactory.instance.numberNode((Long) requestId.value())
        : JsonNodeFactory.instance.stringNode(String.valueOf(requestId.value())));
    if (reason != null) {
      params.put("reason", reason);
    }
    return new JsonRpcNotification(METHOD, params);
  }
}
