package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of a tool the model used, in a sampling request (SEP-1577).
 *
 * @param toolUseId the id of the {@link ToolUseContent} it answers
 * @param content the result blocks
 * @param structuredContent structured result, or null
 * @param isError whether the tool failed, or null
 * @param meta {@code _meta}, or null
 */
public record ToolResultContent(String toolUseId, List<Content> content,
    JsonNode structuredContent, Boolean isError,
    @JsonProperty("_meta") ObjectNode meta) implements Content {

  /** Checks the required members. */
  public ToolResultContent {
    Objects.requireNonNull(toolUseId, "toolUseId");
    content = content == null ? List.of() : List.copyOf(content);
  }
}
