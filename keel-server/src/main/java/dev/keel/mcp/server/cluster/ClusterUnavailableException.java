package dev.keel.mcp.server.cluster;

/**
 * The shared store could not be reached in time. A transport answers the request that needed it
 * with 503 and {@code Retry-After}; the node keeps serving what needs no store.
 */
public final class ClusterUnavailableException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception; {@code cause} is what the store's client reported. */
  public ClusterUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
