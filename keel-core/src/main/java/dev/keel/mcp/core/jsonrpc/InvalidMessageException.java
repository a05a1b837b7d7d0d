package dev.keel.mcp.core.jsonrpc;

import dev.keel.mcp.core.McpException;

/**
 * A peer's message could not be decoded: {@code -32700} for bad JSON or excessive nesting,
 * {@code -32600} for JSON that is not one valid JSON-RPC message.
 *
 * <p>It carries the request id when one could still be read, so that the error response can
 * name the request it answers.
 */
public final class InvalidMessageException extends McpException {

  private static final long serialVersionUID = 1L;

  private final transient RequestId requestId;

  /** Creates the exception. */
  public InvalidMessageException(int code, String message, RequestId requestId) {
    super(code, message);
    this.requestId = requestId;
  }

  /** Returns the id of the offending request, or null when none could be read. */
  public RequestId requestId() {
    return requestId;
  }
}
