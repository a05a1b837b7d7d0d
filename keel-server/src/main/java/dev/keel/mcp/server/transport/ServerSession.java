package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.server.Principal;

/**
 * A legacy-era session, created by {@code initialize} and ended by DELETE, expiry or the end of a
 * stdio process.
 */
public interface ServerSession {

  /** Returns the session id: secure random, visible ASCII. */
  String id();

  /** Returns the principal that created the session. */
  Principal owner();

  /** Returns the negotiated protocol version. */
  String protocolVersion();

  /** Returns what the client declared at {@code initialize}. */
  ClientCapabilities clientCapabilities();

  /** Returns the client's name and version, or null. */
  Implementation clientInfo();

  /** Returns true once the session was ended. */
  boolean isClosed();

  /**
   * Makes {@code stream} the session's listening stream, replacing any earlier one (which is
   * not closed here: its transport decides).
   */
  ListenerAttachment attachListener(MessageStream stream);

  /**
   * Ends the session: cancels its in-flight requests, fails its pending requests to the client,
   * drops its listener and subscriptions, and forgets it. Idempotent.
   */
  void close();

  /**
   * Records activity: a transport calls it when a stream proves its peer alive (a keep-alive
   * went through), so a session with a healthy listening stream is never idle.
   */
  void touch();

  /** Runs {@code action} once when the session ends (at once if it already has). */
  void onClose(Runnable action);
}
