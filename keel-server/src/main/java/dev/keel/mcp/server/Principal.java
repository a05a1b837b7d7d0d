package dev.keel.mcp.server;

import java.util.Map;
import java.util.Objects;

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
 */
public record Principal(String id, String fingerprint, Map<String, Object> claims) {

  private static final Principal LOCAL = new Principal("local", "local:local");

  /** Checks that id and fingerprint are non-blank, and keeps an unmodifiable copy of the claims. */
  public Principal {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    if (id.isBlank() || fingerprint.isBlank()) {
      throw new IllegalArgumentException("principal id and fingerprint must not be blank");
    }
    claims = claims == null ? Map.of() : Map.copyOf(claims);
  }

  /** Creates a principal with no claims. */
  public Principal(String id, String fingerprint) {
    this(id, fingerprint, Map.of());
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
