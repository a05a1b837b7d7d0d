package dev.keel.mcp.core.schema;

import java.util.List;

/**
 * What the server would like from the model a client samples with.
 *
 * @param hints model name hints in order of preference, or null
 * @param costPriority 0 to 1, or null
 * @param speedPriority 0 to 1, or null
 * @param intelligencePriority 0 to 1, or null
 */
public record ModelPreferences(List<Hint> hints, Double costPriority, Double speedPriority,
    Double intelligencePriority) {

  /** Copies the hints. */
  public ModelPreferences {
    hints = hints == null ? null : List.copyOf(hints);
  }

  /**
   * A model name hint.
   *
   * @param name a full or partial model name
   */
  public record Hint(String name) {}
}
