package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A prompt template the server offers.
 *
 * @param name its name
 * @param title a display name, or null
 * @param description a description, or null
 * @param arguments the arguments it accepts, or null
 * @param icons icons, or null
 * @param meta {@code _meta}, or null
 */
public record Prompt(String name, String title, String description,
    List<PromptArgument> arguments, List<Icon> icons, @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the name and copies the lists. */
  public Prompt {
    Objects.requireNonNull(name, "name");
    arguments = arguments == null ? null : List.copyOf(arguments);
    icons = icons == null ? null : List.copyOf(icons);
  }

  /** Returns a prompt with a name, a description and arguments. */
  public static Prompt of(String name, String description, PromptArgument... arguments) {
    return new Prompt(name, null, description, arguments.length == 0 ? null : List.of(arguments),
        null, null);
  }
}
