package dev.keel.mcp.core;

/**
 * The connection or session a request travelled on ended before its answer came. Local only.
 */
public class ConnectionClosedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception with a description of what closed. */
  public ConnectionClosedException(String message) {
    super(message);
  }
}
