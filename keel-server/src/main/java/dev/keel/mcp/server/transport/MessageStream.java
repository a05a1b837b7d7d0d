package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;

/**
 * Where the server sends messages: a session's listening stream (everything unrelated to a
 * request), or the stream of one request ({@link RequestStream}).
 *
 * <p>Implementations must be thread-safe: a handler, a keep-alive timer and the registry may
 * send at once. {@code send} must not block for long; a slow peer is the transport's problem.
 */
@FunctionalInterface
public interface MessageStream {

  /**
   * Sends one message.
   *
   * @return false when the stream is gone and the message was not taken
   */
  boolean send(JsonRpcMessage message);
}
