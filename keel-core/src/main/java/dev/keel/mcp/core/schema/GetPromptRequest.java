package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Map;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code prompts/get}.
 *
 * @param name the prompt
 * @param arguments argument values by name, or null
 * @param meta {@code _meta}, or null
 */
public record GetPromptRequest(String name, Map<String, String> arguments,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the name and copies the arguments. */
  public GetPromptRequest {
    Objects.requireNonNull(name, "name");
    arguments = arguments == null ? Map.of() : Map.copyOf(arguments);
  }
}
