package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;

/**
 * Where the server sends messages: the stream of one request (its progress, logs and requests
 * to the client) or a session's listening stream (everything unrelated to a request).
 *
 * <p>Implementations must be thread-safe: a handler, a keep-alive timer and the registry may
 * send at once. {@code send} must not block for long; a slow peer is the transport's problem.
 */
public interface MessageStream {

  /**
   * Sends one message.
   *
   * @return false when the stream is gone and the message was not taken
   */
  boolean send(JsonRpcMessage message);

  /**
   * Closes the connection under this stream early so the client polls for the rest (SEP-1699).
   * Later messages must still reach the client when it reconnects. The default does nothing.
   */
  default void closeForPolling() {}

  /**
   * Called by the engine just before the handler of the request this stream carries starts,
   * with a way to cancel that request, for a transport that learns of cancellation itself (a
   * dropped connection that cannot be resumed). The default ignores it.
   */
  default void requestStarted(java.util.function.Consumer<String> cancel) {}

  /**
   * Keeps this request's stream open after its handler returned, for a request answered later
   * (a {@code subscriptions/listen}). Later messages go through {@link #send}; {@link #release}
   * ends the stream. The default cannot hold streams.
   *
   * @param onGone runs once when the peer goes away while the stream is held
   * @return false when this transport cannot hold streams
   */
  default boolean hold(Runnable onGone) {
    return false;
  }

  /** Ends a held stream after its last message. The default does nothing. */
  default void release() {}

  /**
   * Returns the scope in which a client's {@code notifications/cancelled} names the stateless
   * requests of this connection (stdio), or null where closing the stream is the cancellation
   * (HTTP). Legacy requests are always scoped by their session.
   */
  default String cancellationScope() {
    return null;
  }
}
