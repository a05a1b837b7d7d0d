package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code completion/complete}.
 *
 * @param ref the prompt or resource template
 * @param argument the argument being completed
 * @param context values of arguments already chosen, or null
 * @param meta {@code _meta}, or null
 */
public record CompleteRequest(CompletionReference ref, Argument argument, Context context,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the required members. */
  public CompleteRequest {
    Objects.requireNonNull(ref, "ref");
    Objects.requireNonNull(argument, "argument");
  }

  /**
   * The argument being completed.
   *
   * @param name its name
   * @param value what the user typed so far
   */
  public record Argument(String name, String value) {
    /** Checks the members. */
    public Argument {
      Objects.requireNonNull(name, "name");
      value = value == null ? "" : value;
    }
  }

  /**
   * Arguments already chosen.
   *
   * @param arguments their values by name, or null
   */
  public record Context(Map<String, String> arguments) {
    /** Copies the map. */
    public Context {
      arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
    }
  }
}
