package dev.keel.mcp.server.internal.dispatch;

/**
 * How long a stateless client may cache a result (SEP-2549).
 *
 * @param ttlMillis the time to live, 0 or more
 * @param scope {@code public} (any caller may share it) or {@code private} (only this caller)
 */
public record CacheHint(long ttlMillis, String scope) {

  /** Checks the values. */
  public CacheHint {
    if (ttlMillis < 0) {
      throw new IllegalArgumentException("ttl must not be negative: " + ttlMillis);
    }
    if (!scope.equals("public") && !scope.equals("private")) {
      throw new IllegalArgumentException("cache scope must be public or private: " + scope);
    }
  }
}
