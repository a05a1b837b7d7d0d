package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A model's request to use a tool, in a sampling result (SEP-1577).
 *
 * @param id the id the matching {@link ToolResultContent} refers to
 * @param name the tool name
 * @param input the tool arguments
 * @param meta {@code _meta}, or null
 */
public record ToolUseContent(String id, String name, ObjectNode input,
    @JsonProperty("_meta") ObjectNode meta) implements Content {

  /** Checks the required members. */
  public ToolUseContent {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(name, "name");
  }
}
