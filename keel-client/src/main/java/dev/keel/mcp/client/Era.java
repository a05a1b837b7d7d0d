package dev.keel.mcp.client;

/** Which protocol era a client speaks with a server. */
public enum Era {
  /** Find out: probe with {@code server/discover}, fall back to {@code initialize}. */
  AUTO,
  /** {@code initialize} and sessions (2025-03-26 to 2025-11-25). */
  LEGACY,
  /** Stateless requests carrying their {@code _meta} (2026-07-28). */
  MODERN
}
