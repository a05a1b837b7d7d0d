package dev.keel.mcp.server;

import java.util.Objects;

/**
 * Who a request runs as. The transport's authenticator decides; unauthenticated loopback use runs
 * as {@link #local()}.
 *
 * <p>The fingerprint is what sessions, tasks and subscriptions are bound to: two principals with
 * the same fingerprint are the same owner. It is never sent to a peer.
 *
 * @param id a readable name (user id, token subject, API key id)
 * @param fingerprint the stable identity used for ownership checks
 */
public record Principal(String id, String fingerprint) {

  private static final Principal LOCAL = new Principal("local", "local:local");

  /** Checks that both members are non-blank. */
  public Principal {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(fingerprint, "fingerprint");
    if (id.isBlank() || fingerprint.isBlank()) {
      throw new IllegalArgumentException("principal id and fingerprint must not be blank");
    }
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
