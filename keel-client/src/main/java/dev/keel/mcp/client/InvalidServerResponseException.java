package dev.keel.mcp.client;

/**
 * The server broke the protocol: an answer of the wrong shape, a pagination cursor repeated, more
 * pages or input rounds than the client allows, a version the client does not speak. The text
 * names what was wrong, never the server's payload.
 */
public final class InvalidServerResponseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public InvalidServerResponseException(String message) {
    super(message);
  }

  /** Creates the exception with a cause. */
  public InvalidServerResponseException(String message, Throwable cause) {
    super(message, cause);
  }
}
