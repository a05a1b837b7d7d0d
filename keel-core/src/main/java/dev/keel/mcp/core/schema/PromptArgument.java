package dev.keel.mcp.core.schema;

import java.util.Objects;

/**
 * An argument a prompt accepts.
 *
 * @param name its name
 * @param title a display name, or null
 * @param description a description, or null
 * @param required whether it must be given, or null
 */
public record PromptArgument(String name, String title, String description, Boolean required) {

  /** Checks the name. */
  public PromptArgument {
    Objects.requireNonNull(name, "name");
  }

  /** Returns a required argument. */
  public static PromptArgument required(String name, String description) {
    return new PromptArgument(name, null, description, true);
  }

  /** Returns an optional argument. */
  public static PromptArgument optional(String name, String description) {
    return new PromptArgument(name, null, description, null);
  }
}
