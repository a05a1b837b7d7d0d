package dev.keel.mcp.http.internal;

import dev.keel.mcp.http.Authenticator;
import dev.keel.mcp.server.Principal;
import jakarta.servlet.http.HttpServletRequest;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Static API keys: {@code Authorization: Bearer SECRET} runs as the principal the secret belongs
 * to. Secrets are kept only as SHA-256 digests and looked up by digest, so the comparison takes
 * the same time whichever key (if any) matches. The fingerprint is {@code apikey:<principal>}.
 */
public final class BearerTokenAuthenticator implements Authenticator {

  private final Map<String, Principal> byDigest;

  /**
   * Creates the authenticator.
   *
   * @param principalsBySecret principal names by their secret
   * @throws IllegalArgumentException for a blank name or secret
   */
  public BearerTokenAuthenticator(Map<String, String> principalsBySecret) {
    Map<String, Principal> map = new HashMap<>();
    principalsBySecret.forEach((secret, name) -> {
      if (secret == null || secret.isBlank() || name == null || name.isBlank()) {
        throw new IllegalArgumentException("API key principals and secrets must not be blank");
      }
      map.put(digest(secret), new Principal(name, "apikey:" + name));
    });
    this.byDigest = Map.copyOf(map);
  }

  @Override
  public Optional<Principal> authenticate(HttpServletRequest request) {
    return authenticate(request.getHeader("Authorization"));
  }

  /** Returns the principal of an {@code Authorization} header's value (null when absent). */
  Optional<Principal> authenticate(String header) {
    if (header == null || header.length() < 8
        || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return Optional.empty();
    }
    String token = header.substring(7).trim();
    if (token.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(byDigest.get(digest(token)));
  }

  private static String digest(String secret) {
    return Fingerprints.sha256(secret);
  }
}
