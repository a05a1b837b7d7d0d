package dev.keel.mcp.core;

import java.util.List;

/**
 * The MCP protocol revisions Keel speaks, and version negotiation for the legacy handshake.
 *
 * <p>Legacy revisions (2025-03-26, 2025-06-18, 2025-11-25) use {@code initialize} and sessions;
 * modern ones (2026-07-28) carry version and capabilities in every request's {@code _meta}.
 */
public final class ProtocolVersion {

  /** Revision 2025-03-26. */
  public static final String V2025_03_26 = "2025-03-26";
  /** Revision 2025-06-18. */
  public static final String V2025_06_18 = "2025-06-18";
  /** Revision 2025-11-25, the newest legacy revision. */
  public static final String V2025_11_25 = "2025-11-25";
  /** The version a legacy server offers when the client asks for one it does not know. */
  public static final String LATEST_LEGACY = V2025_11_25;
  /** The legacy revisions Keel negotiates, newest first. */
  public static final List<String> LEGACY = List.of(V2025_11_25, V2025_06_18, V2025_03_26);
  /** Revision 2026-07-28, the first stateless ("modern") revision. */
  public static final String V2026_07_28 = "2026-07-28";
  /** The modern revisions Keel serves statelessly, newest first. */
  public static final List<String> MODERN = List.of(V2026_07_28);
  /**
   * The version assumed when an HTTP request carries no {@code MCP-Protocol-Version} header and
   * nothing else tells (spec 2025-11-25, transports).
   */
  public static final String HEADERLESS_DEFAULT = V2025_03_26;

  private ProtocolVersion() {}

  /** Returns true when Keel serves this modern revision. */
  public static boolean isModern(String version) {
    return version != null && MODERN.contains(version);
  }

  /** Returns true when Keel speaks this legacy revision. */
  public static boolean isLegacy(String version) {
    return version != null && LEGACY.contains(version);
  }

  /**
   * Returns the version to answer an {@code initialize} with: the requested one when Keel speaks
   * it, otherwise the newest legacy revision (the client then decides whether to go on).
   */
  public static String negotiate(String requested) {
    return isLegacy(requested) ? requested : LATEST_LEGACY;
  }

  /** Returns true when {@code version} is {@code other} or newer (dates compare as strings). */
  public static boolean atLeast(String version, String other) {
    return version != null && version.compareTo(other) >= 0;
  }
}
