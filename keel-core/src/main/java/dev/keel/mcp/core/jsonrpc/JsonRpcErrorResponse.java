package dev.keel.mcp.core.jsonrpc;

import java.util.Objects;

/**
 * A JSON-RPC error response.
 *
 * @param id the id of the request it answers, or null when that id could not be read
 * @param error the error object
 */
public record JsonRpcErrorResponse(RequestId id, JsonRpcError error) implements JsonRpcMessage {

  /** Checks the required members. */
  public JsonRpcErrorResponse {
    Objects.requireNonNull(error, "error");
  }
}
