package dev.keel.mcp.client;

import dev.keel.mcp.core.ConnectionClosedException;

/**
 * A write pinned to a session was refused because that session has ended: nothing was written.
 * The payload belonged to the ended session (a task id, an input key) and must be dropped, not
 * re-sent into the session that replaced it.
 */
public final class SessionChangedException extends ConnectionClosedException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception naming the ended session epoch. */
  public SessionChangedException(long pinnedEpoch, long currentEpoch) {
    super("the server session the request belongs to ended before it was sent (session "
        + pinnedEpoch + " is over; the transport is at " + currentEpoch + ")");
  }
}
