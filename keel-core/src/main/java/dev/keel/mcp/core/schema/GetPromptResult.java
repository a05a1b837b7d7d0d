package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of {@code prompts/get}.
 *
 * @param description a description, or null
 * @param messages the messages
 * @param meta {@code _meta}, or null
 */
public record GetPromptResult(String description, List<PromptMessage> messages,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the messages. */
  public GetPromptResult {
    messages = messages == null ? List.of() : List.copyOf(messages);
  }

  /** Returns a result of the given messages. */
  public static GetPromptResult of(PromptMessage... messages) {
    return new GetPromptResult(null, List.of(messages), null);
  }
}
