package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import java.util.Optional;

/**
 * The stream of one request: its progress, logs and requests to the client go out through
 * {@link #send}, and {@link #finish} ends it with the answer. Thread-safe, like every
 * {@link MessageStream}.
 */
public interface RequestStream extends MessageStream {

  /** Sends the answer, or nothing for a cancelled request, and ends the stream. Called once. */
  void finish(Optional<JsonRpcMessage> answer);

  /**
   * Closes the connection under this stream early so the client polls for the rest (SEP-1699);
   * later messages must still reach the client when it reconnects. A transport without
   * resumable streams does nothing.
   */
  void closeForPolling();

  /**
   * Keeps the stream open after the handler returned, for a request answered later (a
   * {@code subscriptions/listen}): later messages go through {@link #send}, {@link #release}
   * ends it.
   *
   * @param onGone runs once when the peer goes away while the stream is held
   * @return false when this transport cannot hold streams
   */
  boolean hold(Runnable onGone);

  /** Ends a held stream after its last message. */
  void release();
}
