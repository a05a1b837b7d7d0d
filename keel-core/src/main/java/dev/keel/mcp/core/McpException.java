package dev.keel.mcp.core;

import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import tools.jackson.databind.JsonNode;

/**
 * A protocol error that is sent to the peer as a JSON-RPC error.
 *
 * <p>The message must be safe to show the peer: it never carries exception text, class names or
 * excerpts of input. Any other exception a handler throws becomes {@code -32603 "Internal
 * error"}, with its details only in the log.
 */
public class McpException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int code;
  private final transient JsonNode data;

  /** Creates an error with a code and a peer-safe message. */
  public McpException(int code, String message) {
    this(code, message, null);
  }

  /** Creates an error with a code, a peer-safe message and structured data. */
  public McpException(int code, String message, JsonNode data) {
    super(message, null, false, false);
    this.code = code;
    this.data = data;
  }

  /** Returns the JSON-RPC error code. */
  public int code() {
    return code;
  }

  /** Returns the structured error data, or null. */
  public JsonNode data() {
    return data;
  }

  /** Returns this error as the error member of a JSON-RPC response. */
  public JsonRpcError toError() {
    return new JsonRpcError(code, getMessage(), data);
  }

  /** Returns {@code -32602} with the given message. */
  public static McpException invalidParams(String message) {
    return new McpException(ErrorCodes.INVALID_PARAMS, message);
  }

  /** Returns {@code -32601} naming the method. */
  public static McpException methodNotFound(String method) {
    return new McpException(ErrorCodes.METHOD_NOT_FOUND, "Method not found: " + Text.safe(method));
  }

  /** Returns {@code -32600} with the given message. */
  public static McpException invalidRequest(String message) {
    return new McpException(ErrorCodes.INVALID_REQUEST, message);
  }

  /** Returns {@code -32603 "Internal error"}. */
  public static McpException internalError() {
    return new McpException(ErrorCodes.INTERNAL_ERROR, "Internal error");
  }
}
