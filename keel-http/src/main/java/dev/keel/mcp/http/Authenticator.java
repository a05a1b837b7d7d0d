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
 * throws or says ever reaches the peer beyond its {@link #refusal} challenge. It must be fast and
 * thread-safe.
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

  /**
   * Returns how a request this authenticator just refused is answered: its status and its
   * {@code WWW-Authenticate} challenge. Called on the same thread, for the same request, right
   * after {@link #authenticate} returned empty. The default is 401 with {@code Bearer}.
   */
  default Refusal refusal(HttpServletRequest request) {
    return Refusal.UNAUTHORIZED;
  }

  /**
   * Returns how a call is refused that the principal may make in general but whose scopes do
   * not cover this operation ({@code missing}: the tool's required scopes its token lacks).
   * The default is 403 with {@code Bearer error="insufficient_scope", scope="…"}.
   */
  default Refusal insufficientScope(HttpServletRequest request, java.util.Set<String> missing) {
    return new Refusal(403, "Bearer error=\"insufficient_scope\", scope=\""
        + String.join(" ", new java.util.TreeSet<>(missing)) + "\"");
  }

  /**
   * How a refused request is answered. The body is fixed per status and says nothing more.
   *
   * @param status 401 (no or a bad credential) or 403 (a good one that may not do this)
   * @param challenge the {@code WWW-Authenticate} header value (RFC 6750 §3)
   */
  record Refusal(int status, String challenge) {

    /** 401 with a bare {@code Bearer} challenge. */
    public static final Refusal UNAUTHORIZED = new Refusal(401, "Bearer");

    /** Checks the status and that the challenge is one header line. */
    public Refusal {
      if (status != 401 && status != 403) {
        throw new IllegalArgumentException("a refusal is 401 or 403, not " + status);
      }
      if (challenge == null || challenge.isBlank() || challenge.indexOf('\r') >= 0
          || challenge.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("a challenge is one non-blank header line");
      }
    }
  }

  /**
   * Returns an authenticator that asks each of {@code authenticators} in turn and takes the
   * first principal, for example OAuth access tokens and static API keys at once. A request all
   * of them refuse is answered with the first one's {@link #refusal}: put the one whose challenge
   * clients should see (the {@link OAuthResourceServer}) first.
   */
  static Authenticator anyOf(Authenticator... authenticators) {
    java.util.List<Authenticator> all = java.util.List.of(authenticators);
    if (all.isEmpty()) {
      throw new IllegalArgumentException("anyOf needs at least one authenticator");
    }
    return new Authenticator() {
      @Override
      public Optional<Principal> authenticate(HttpServletRequest request) {
        for (Authenticator a : all) {
          Optional<Principal> principal = a.authenticate(request);
          if (principal != null && principal.isPresent()) {
            return principal;
          }
        }
        return Optional.empty();
      }

      @Override
      public Refusal refusal(HttpServletRequest request) {
        return all.get(0).refusal(request);
      }

      @Override
      public Refusal insufficientScope(HttpServletRequest request,
          java.util.Set<String> missing) {
        return all.get(0).insufficientScope(request, missing);
      }
    };
  }

  /** Returns an authenticator that runs every request as {@link Principal#local()}. */
  static Authenticator local() {
    return dev.keel.mcp.http.internal.LocalAuthenticator.INSTANCE;
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
