package dev.keel.mcp.http.internal.oauth;

import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSelector;
import com.nimbusds.jose.jwk.JWKSet;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authorization server's signing keys, fetched from its {@code jwks_uri} on first use and
 * kept until a token names a key they do not hold. Then they are fetched again (a key rotation
 * is picked up by the first token signed with the new key), but such refreshes happen at most
 * once per {@code minRefresh}, so a flood of tokens with made-up {@code kid}s costs the
 * authorization server one request per interval, not one per token.
 */
final class Jwks {

  private static final Logger LOG = LoggerFactory.getLogger(Jwks.class);

  private final URI uri;
  private final Fetcher fetcher;
  private final Duration minRefresh;
  private final Clock clock;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile JWKSet keys;
  private volatile Instant lastRefresh = Instant.MIN;
  private volatile Instant lastFailure = Instant.MIN;

  Jwks(URI uri, Fetcher fetcher, Duration minRefresh, Clock clock) {
    this.uri = uri;
    this.fetcher = fetcher;
    this.minRefresh = minRefresh;
    this.clock = clock;
  }

  /** Returns the keys that match; fetches once first when none is known or none matches. */
  List<JWK> select(JWKSelector selector) {
    JWKSet current = keys;
    if (current != null) {
      List<JWK> found = selector.select(current);
      if (!found.isEmpty()) {
        return found;
      }
    }
    refresh(current);
    JWKSet fresh = keys;
    return fresh == null ? List.of() : selector.select(fresh);
  }

  private void refresh(JWKSet seen) {
    lock.lock();
    try {
      if (keys != seen) {
        return; // another thread fetched while this one waited
      }
      Instant now = clock.instant();
      if (seen != null) {
        if (now.isBefore(lastRefresh.plus(minRefresh))) {
          return;
        }
        lastRefresh = now;
      } else if (now.isBefore(lastFailure.plus(minRefresh))) {
        return; // the first fetch failed a moment ago: refuse tokens, do not hammer the server
      }
      try {
        keys = JWKSet.parse(fetcher.get(uri));
      } catch (java.text.ParseException | RuntimeException e) {
        lastFailure = now;
        LOG.warn("cannot read the authorization server's keys from {}: {}", uri, e.getMessage());
      }
    } finally {
      lock.unlock();
    }
  }
}
