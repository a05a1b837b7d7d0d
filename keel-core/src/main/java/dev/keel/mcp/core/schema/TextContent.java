package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * Text content.
 *
 * @param text the text
 * @param annotations hints, or null
 * @param meta {@code _meta}, or null
 */
public record TextContent(String text, Annotations annotations,
    @JsonProperty("_meta") ObjectNode meta) implements Content {

  /** Checks the text. */
  public TextContent {
    Objects.requireNonNull(text, "text");
  }
}
