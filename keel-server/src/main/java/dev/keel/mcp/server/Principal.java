package dev.keel.mcp.server;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Who a request runs as. The transport's authenticator decides; unauthenticated loopback use runs
 * as {@link #local()}.
 *
 * <p>The fingerprint is what sessions, tasks and subscriptions are bound to: two principals with
 * the same fingerprint are the same owner, whatever their claims. It is never sent to a peer.
 *
 * @param id a readable name (user id, token subject, API key id)
 * @param fingerprint the stable identity used for ownership checks
 * @param claims what the authenticator verified about the principal (for an OAuth access token,
 *     its claims: {@code iss}, {@code sub}, {@code scope}, …); empty for API keys and local use.
 *     Never the token itself.
 * @param scopes the OAuth scopes the principal's token grants, checked against what tools
 *     require; null for a principal that is not scope-based (API keys, local use), which no
 *     scope requirement restricts
 */
public record Principal(String id, String fingerprint, Map<String, Object> claims,
    Set<String> scopes) {

  private static final Principal LOCAL = new Principal("local", "local:local");

  /** Checks that id and fingerprint are non-blank, and keeps an unmodifiable copy of the claims. */
  public Principal {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    if (id.isBlank() || fingerprint.isBlank()) {
      throw new IllegalArgumentException("principal id and fingerprint must not be blank");
    }
    claims = claims == null ? Map.of() : Map.copyOf(claims);
    scopes = scopes == null ? null : Set.copyOf(scopes);
  }

  /** Creates a principal that is not scope-based, with these claims. */
  public Principal(String id, String fingerprint, Map<String, Object> claims) {
    this(id, fingerprint, claims, null);
  }

  /** Creates a principal with no claims that is not scope-based. */
  public Principal(String id, String fingerprint) {
    this(id, fingerprint, Map.of(), null);
  }

  /**
   * Returns true when the principal may do what needs {@code required}: it is not scope-based,
   * or its scopes include them all.
   */
  public boolean grants(Set<String> required) {
    return required.isEmpty() || scopes == null || scopes.containsAll(required);
  }

  /** Returns a principal whose fingerprint is derived from its id. */
  public static Principal of(String id) {
    return new Principal(id, "id:" + id);
  }

  /** Returns the single principal of unauthenticated loopback use. */
  public static Principal local() {
    return LOCAL;
  }
}
