package dev.keel.mcp.client;

import java.time.Duration;

/**
 * Options of one call.
 *
 * @param timeout how long to wait for the answer, or null for the client's default; on expiry
 *     the call is cancelled at the server and {@link dev.keel.mcp.core.RequestTimeoutException}
 *     is thrown; it is never re-sent
 * @param progress receives progress reports, or null to ask for none
 */
public record CallOptions(Duration timeout, ProgressListener progress) {

  /** Returns the defaults: the client's timeout, no progress. */
  public static CallOptions defaults() {
    return new CallOptions(null, null);
  }

  /** Returns a copy with another timeout. */
  public CallOptions withTimeout(Duration value) {
    return new CallOptions(value, progress);
  }

  /** Returns a copy reporting progress to {@code listener}. */
  public CallOptions withProgress(ProgressListener listener) {
    return new CallOptions(timeout, listener);
  }
}
