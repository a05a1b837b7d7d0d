package dev.keel.agent.internal.run;

/** A statement that failed or was refused while running; its message is safe for the peer. */
public final class QueryFailedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates a failure with a peer-safe message. */
  public QueryFailedException(String message) {
    super(message, null, false, false);
  }
}
