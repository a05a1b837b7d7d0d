package dev.keel.mcp.server.transport;

/**
 * A listening stream attached to a session. Detaching is tied to this attachment: detaching a
 * stale one never removes a newer stream of the same session.
 */
public interface ListenerAttachment {

  /** Detaches this stream if it is still the session's listener; later calls do nothing. */
  void detach();

  /** Returns true while this attachment is the session's current listener. */
  boolean isCurrent();
}
