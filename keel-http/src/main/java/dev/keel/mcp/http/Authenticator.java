package dev.keel.mcp.http;

import dev.keel.mcp.http.internal.BearerTokenAuthenticator;
import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.Optional;

/**
 * Decides who an HTTP request runs as. It runs after the cheap, unauthenticated gates that need
 * only the request head (path, method, origin, content type, declared length), before any byte
 * of a POST body is read, and before anything touches a session. So it sees headers only; the
 * body is not there yet.
 *
 * <p>Returning empty refuses the request with 401 and one fixed body; nothing an authenticator
 * throws or says ever reaches the peer. It must be fast and thread-safe.
 *
 * <pre>{@code
 * Authenticator apiKeys = request -> Optional.ofNullable(request.getHeader("X-Api-Key"))
 *     .map(keys::get)
 *     .map(Principal::of);
 * }</pre>
 */
@FunctionalInterface
public interface Authenticator {

  /** Returns the principal the request runs as, or empty to refuse it with 401. */
  Optional<Principal> authenticate(HttpServletRequest request);

  /** Returns an authenticator that runs every request as {@link Principal#local()}. */
  static Authenticator local() {
    return request -> Optional.of(Principal.local());
  }

  /**
   * Returns a static API-key authenticator: {@code Authorization: Bearer SECRET} runs as the
   * principal the secret is mapped to (fingerprint {@code apikey:<principal>}); anything else is
   * refused. Secrets are held only as SHA-256 digests.
   *
   * @param principalsBySecret principal names by secret
   */
  static Authenticator bearerTokens(Map<String, String> principalsBySecret) {
    return new BearerTokenAuthenticator(principalsBySecret);
  }
}
