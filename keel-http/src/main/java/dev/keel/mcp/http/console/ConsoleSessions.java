package dev.keel.mcp.http.console;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Browser logins: a random cookie value names a server-side record of the operator and its
 * CSRF token. Bounded: past {@link #MAX} logins the oldest are dropped.
 */
final class ConsoleSessions {

  /** The most concurrent browser logins. */
  static final int MAX = 1000;

  /**
   * One login.
   *
   * @param id the cookie value
   * @param operator who logged in
   * @param csrf the token its state-changing requests must carry
   * @param expiresNanos when it lapses
   */
  record Login(String id, String operator, String csrf, long expiresNanos) {}

  private static final Base64.Encoder IDS = Base64.getUrlEncoder().withoutPadding();
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Login> logins = new ConcurrentHashMap<>();
  private final Duration ttl;

  ConsoleSessions(Duration ttl) {
    this.ttl = ttl;
  }

  Login open(String operator) {
    long now = System.nanoTime();
    logins.values().removeIf(l -> l.expiresNanos() - now <= 0);
    if (logins.size() >= MAX) {
      logins.values().stream().min((a, b) -> Long.compare(a.expiresNanos(), b.expiresNanos()))
          .ifPresent(l -> logins.remove(l.id()));
    }
    Login login = new Login(token(), operator, token(), now + ttl.toNanos());
    logins.put(login.id(), login);
    return login;
  }

  Optional<Login> find(String id) {
    if (id == null) {
      return Optional.empty();
    }
    Login login = logins.get(id);
    if (login == null) {
      return Optional.empty();
    }
    if (login.expiresNanos() - System.nanoTime() <= 0) {
      logins.remove(id, login);
      return Optional.empty();
    }
    return Optional.of(login);
  }

  void close(String id) {
    if (id != null) {
      logins.remove(id);
    }
  }

  long ttlSeconds() {
    return ttl.toSeconds();
  }

  private String token() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return IDS.encodeToString(bytes);
  }
}
