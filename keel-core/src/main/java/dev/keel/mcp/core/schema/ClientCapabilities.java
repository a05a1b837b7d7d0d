package dev.keel.mcp.core.schema;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a client can do. Each member is an object whose presence declares the capability; its
 * inner members refine it and are kept as sent, so unknown refinements survive.
 *
 * @param roots {@code roots}, or null
 * @param sampling {@code sampling} (refined by {@code context}, {@code tools}), or null
 * @param elicitation {@code elicitation} (refined by {@code form}, {@code url}), or null
 * @param tasks the 2025-11-25 {@code tasks} capability, or null
 * @param experimental experimental capabilities, or null
 * @param extensions 2026-07-28 extensions by identifier, or null
 */
public record ClientCapabilities(ObjectNode roots, ObjectNode sampling, ObjectNode elicitation,
    ObjectNode tasks, ObjectNode experimental, ObjectNode extensions) {

  /** Returns a client that declared nothing. */
  public static ClientCapabilities none() {
    return new ClientCapabilities(null, null, null, null, null, null);
  }

  /** Returns true when the client answers {@code roots/list}. */
  public boolean supportsRoots() {
    return roots != null;
  }

  /** Returns true when the client answers {@code sampling/createMessage}. */
  public boolean supportsSampling() {
    return sampling != null;
  }

  /** Returns true when the client accepts tools in sampling requests (SEP-1577). */
  public boolean supportsSamplingTools() {
    return sampling != null && sampling.has("tools");
  }

  /** Returns true when the client answers form-mode elicitation ({@code {}} means form). */
  public boolean supportsElicitationForm() {
    return elicitation != null
        && (elicitation.has("form") || !elicitation.has("url"));
  }

  /** Returns true when the client answers URL-mode elicitation. */
  public boolean supportsElicitationUrl() {
    return elicitation != null && elicitation.has("url");
  }

  /** Returns true when the client declared the extension with this identifier. */
  public boolean hasExtension(String id) {
    JsonNode ext = extensions == null ? null : extensions.get(id);
    return ext != null && !ext.isNull();
  }
}
