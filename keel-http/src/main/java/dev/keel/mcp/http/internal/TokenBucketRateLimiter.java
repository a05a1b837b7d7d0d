package dev.keel.mcp.http.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.keel.mcp.http.RateLimiter;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.Optional;

/** A token bucket per client address, in a bounded LRU table. */
public final class TokenBucketRateLimiter implements RateLimiter {

  private static final class Bucket {
    double tokens;
    long lastNanos;

    Bucket(double tokens, long now) {
      this.tokens = tokens;
      this.lastNanos = now;
    }
  }

  private final double perSecond;
  private final int burst;
  private final Cache<String, Bucket> buckets =
      Caffeine.newBuilder().maximumSize(100_000).build();

  /** Creates a limiter refilling at {@code perSecond} up to {@code burst}. */
  public TokenBucketRateLimiter(double perSecond, int burst) {
    if (perSecond <= 0 || burst <= 0) {
      throw new IllegalArgumentException("rate and burst must be positive");
    }
    this.perSecond = perSecond;
    this.burst = burst;
  }

  @Override
  public Optional<Duration> admit(HttpServletRequest request) {
    long now = System.nanoTime();
    Bucket bucket = buckets.get(String.valueOf(request.getRemoteAddr()),
        k -> new Bucket(burst, now));
    synchronized (bucket) {
      double elapsed = (now - bucket.lastNanos) / 1e9;
      bucket.tokens = Math.min(burst, bucket.tokens + elapsed * perSecond);
      bucket.lastNanos = now;
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return Optional.empty();
      }
      double wait = (1 - bucket.tokens) / perSecond;
      return Optional.of(Duration.ofMillis((long) Math.ceil(wait * 1000)));
    }
  }
}
