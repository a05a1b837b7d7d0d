package dev.keel.mcp.client;

/**
 * A transport failed: the connection broke, the server answered with an HTTP status that carries
 * no JSON-RPC error, a stream or body exceeded its bound, or a redirect was refused. Local only.
 */
public class TransportException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final int httpStatus;

  /** Creates the exception. */
  public TransportException(String message) {
    this(message, 0, null);
  }

  /** Creates the exception with an HTTP status (0 when none) and a cause. */
  public TransportException(String message, int httpStatus, Throwable cause) {
    super(message, cause);
    this.httpStatus = httpStatus;
  }

  /** Returns the HTTP status, or 0 when the failure had none. */
  public int httpStatus() {
    return httpStatus;
  }
}
