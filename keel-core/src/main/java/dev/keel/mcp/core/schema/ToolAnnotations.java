package dev.keel.mcp.core.schema;

/**
 * Hints about a tool's behaviour. Clients treat them as untrusted unless they trust the server.
 *
 * @param title a display name, or null
 * @param readOnlyHint true when the tool changes nothing, or null
 * @param destructiveHint true when it may destroy data, or null
 * @param idempotentHint true when repeating a call has no further effect, or null
 * @param openWorldHint true when it reaches outside systems, or null
 */
public record ToolAnnotations(String title, Boolean readOnlyHint, Boolean destructiveHint,
    Boolean idempotentHint, Boolean openWorldHint) {

  /** Returns the hints of a read-only, idempotent, closed-world tool. */
  public static ToolAnnotations readOnly() {
    return new ToolAnnotations(null, true, false, true, false);
  }
}
