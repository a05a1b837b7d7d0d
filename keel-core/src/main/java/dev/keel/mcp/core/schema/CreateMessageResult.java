package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client's answer to {@code sampling/createMessage}.
 *
 * @param role normally {@code assistant}
 * @param content the blocks (one block on the wire may be a bare object)
 * @param model the model that answered
 * @param stopReason {@code endTurn}, {@code stopSequence}, {@code maxTokens}, {@code toolUse}
 *     or another string, or null
 * @param meta {@code _meta}, or null
 */
public record CreateMessageResult(Role role,
    @JsonFormat(with = {JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY,
        JsonFormat.Feature.WRITE_SINGLE_ELEM_ARRAYS_UNWRAPPED}) List<Content> content,
    String model, String stopReason, @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the content. */
  public CreateMessageResult {
    content = content == null ? List.of() : List.copyOf(content);
  }

  /** Returns the text of the first text block, or null when there is none. */
  public String text() {
    for (Content c : content) {
      if (c instanceof TextContent t) {
        return t.text();
      }
    }
    return null;
  }
}
