package dev.keel.mcp.http;

import dev.keel.mcp.http.internal.TokenBucketRateLimiter;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.Optional;

/**
 * Admits or refuses requests before authentication, so that floods cost as little as possible.
 * A refused request gets 429 with {@code Retry-After}.
 */
@FunctionalInterface
public interface RateLimiter {

  /** Returns empty to admit the request, or how long the client should wait. */
  Optional<Duration> admit(HttpServletRequest request);

  /**
   * Returns a token bucket per client address: {@code burst} requests at once, refilled at
   * {@code perSecond}. At most 100,000 addresses are tracked; the least recently seen go first.
   */
  static RateLimiter perClientAddress(double perSecond, int burst) {
    return new TokenBucketRateLimiter(perSecond, burst);
  }
}
