package dev.keel.mcp.core;

/**
 * The request was cancelled (by the peer, a timeout, a dropped stream or a session end).
 *
 * <p>A handler that lets this escape sends nothing more for its request: cancelled requests get
 * no response.
 */
public final class RequestCancelledException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception with the cancellation reason. */
  public RequestCancelledException(String reason) {
    super(reason == null ? "cancelled" : "cancelled: " + reason, null, false, false);
  }
}
