package dev.keel.mcp.core.protocol;

import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.ProtocolVersion;
import tools.jackson.databind.JsonNode;

/**
 * The two eras of MCP, and the one rule that tells which one a message speaks. Every server
 * transport asks {@link #of(Facts)} once per message, at its edge, and hands the answer on;
 * nothing after it decides again.
 *
 * <p>The rule, in order:
 * <ol>
 *   <li>{@code _meta} names a protocol version: {@link #MODERN} (the stateless era's marker;
 *       a session id sent along is ignored, as the spec says);</li>
 *   <li>{@code initialize}: {@link #LEGACY} (it opens a legacy session, whatever headers came
 *       with it);</li>
 *   <li>a method that exists only in the stateless era ({@code server/discover},
 *       {@code subscriptions/listen}): {@link #MODERN}, so that it gets the stateless era's
 *       errors;</li>
 *   <li>a session id: {@link #LEGACY};</li>
 *   <li>an {@code MCP-Protocol-Version} header naming a modern revision: {@link #MODERN} (a
 *       stateless request that forgot its {@code _meta} is told so in its own era);</li>
 *   <li>anything else, responses included: {@link #LEGACY}.</li>
 * </ol>
 * The {@code Mcp-Method} and {@code Mcp-Name} headers decide nothing: bridges such as
 * {@code mcp-remote} send them on legacy requests too, and the stateless era checks them against
 * the body only once the era is known.
 */
public enum Era {
  /** Revisions 2025-03-26 to 2025-11-25: {@code initialize}, sessions, server requests. */
  LEGACY,
  /** Revision 2026-07-28 and later: stateless, {@code _meta} on every request. */
  MODERN;

  /**
   * What a transport knows of one message when it asks for its era.
   *
   * @param method the method, or null for a response
   * @param params the params object, or null
   * @param versionHeader the {@code MCP-Protocol-Version} header, or null (stdio has none)
   * @param sessionId the {@code Mcp-Session-Id} header, or null
   * @param mcpMethod the {@code Mcp-Method} header, or null: carried, never deciding
   * @param mcpName the {@code Mcp-Name} header, or null: carried, never deciding
   */
  public record Facts(String method, JsonNode params, String versionHeader, String sessionId,
      String mcpMethod, String mcpName) {

    /** The facts of a message that came without headers (stdio, in-memory). */
    public static Facts of(String method, JsonNode params) {
      return new Facts(method, params, null, null, null, null);
    }
  }

  /** Returns the era a message speaks; see the class documentation for the rule. */
  public static Era of(Facts facts) {
    JsonNode meta = facts.params() == null ? null : facts.params().get("_meta");
    if (meta != null && meta.isObject() && meta.has(MetaKeys.PROTOCOL_VERSION)) {
      return MODERN;
    }
    String method = facts.method();
    if (method == null) {
      return LEGACY;
    }
    if (method.equals(McpMethod.INITIALIZE.wireName())) {
      return LEGACY;
    }
    McpMethod known = McpMethod.of(method).orElse(null);
    if (known != null && known.modern() && !known.legacy()) {
      return MODERN;
    }
    if (facts.sessionId() != null) {
      return LEGACY;
    }
    if (facts.versionHeader() != null
        && ProtocolVersion.isModern(facts.versionHeader().strip())) {
      return MODERN;
    }
    return LEGACY;
  }
}
