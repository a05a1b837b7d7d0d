package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.keel.mcp.core.McpJson;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of a tool call. A tool that fails returns {@code isError: true} with a message in
 * {@code content}; that is a result, not a protocol error.
 *
 * @param content the result blocks
 * @param structuredContent structured result matching the tool's output schema, or null
 * @param isError true when the tool failed, or null
 * @param meta {@code _meta}, or null
 */
public record CallToolResult(List<Content> content, JsonNode structuredContent, Boolean isError,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the content. */
  public CallToolResult {
    content = content == null ? List.of() : List.copyOf(content);
  }

  /** Returns a result of one text block. */
  public static CallToolResult text(String text) {
    return new CallToolResult(List.of(Content.text(text)), null, null, null);
  }

  /** Returns a result of the given blocks. */
  public static CallToolResult of(Content... content) {
    return new CallToolResult(List.of(content), null, null, null);
  }

  /** Returns a tool error: {@code isError: true} with one text block. */
  public static CallToolResult error(String message) {
    return new CallToolResult(List.of(Content.text(message)), null, true, null);
  }

  /**
   * Returns a result carrying structured content, with its JSON text as a text block too (for
   * clients that do not read {@code structuredContent}).
   */
  public static CallToolResult structured(JsonNode value) {
    String text = McpJson.standard().write(value);
    return new CallToolResult(List.of(Content.text(text)), value, null, null);
  }

  /** Returns true when this result reports a tool error. */
  public boolean failed() {
    return Boolean.TRUE.equals(isError);
  }
}
