package dev.keel.mcp.client;

import dev.keel.mcp.core.ConnectionClosedException;

/**
 * The server no longer knows the session a request named (HTTP 404): the session ended, and the
 * client must start a new one. The request may not have run; only idempotent requests are
 * re-sent, into the new session.
 */
public final class SessionExpiredException extends ConnectionClosedException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public SessionExpiredException() {
    super("the server session expired (HTTP 404)");
  }
}
