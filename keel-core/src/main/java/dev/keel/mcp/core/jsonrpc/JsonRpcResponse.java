package dev.keel.mcp.core.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * A successful JSON-RPC response.
 *
 * @param id the id of the request it answers
 * @param result the result value (an object in MCP)
 */
public record JsonRpcResponse(RequestId id, JsonNode result) implements JsonRpcMessage {

  /** Checks the required members. */
  public JsonRpcResponse {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(result, "result");
  }
}
