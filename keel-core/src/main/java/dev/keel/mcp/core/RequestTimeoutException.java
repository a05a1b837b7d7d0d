package dev.keel.mcp.core;

import java.time.Duration;

/**
 * A request to the peer got no answer in time. Local only: it never crosses the wire. The request
 * was cancelled at the peer where the era allows, and it is never re-sent.
 */
public final class RequestTimeoutException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** Creates the exception naming the method and the timeout. */
  public RequestTimeoutException(String method, Duration timeout) {
    super(method + " got no answer within " + timeout.toMillis() + " ms");
  }
}
