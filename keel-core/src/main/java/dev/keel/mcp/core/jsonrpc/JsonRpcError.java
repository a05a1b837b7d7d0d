package dev.keel.mcp.core.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * The error member of a JSON-RPC error response.
 *
 * @param code the integer error code (see {@link dev.keel.mcp.core.ErrorCodes})
 * @param message a short description that is safe to show the peer
 * @param data optional structured detail, or null
 */
public record JsonRpcError(int code, String message, JsonNode data) {

  /** Checks the required members. */
  public JsonRpcError {
    Objects.requireNonNull(message, "message");
  }
}
