package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * Text contents of a resource.
 *
 * @param uri the resource URI
 * @param mimeType the media type, or null
 * @param text the text
 * @param meta {@code _meta}, or null
 */
public record TextResourceContents(String uri, String mimeType, String text,
    @JsonProperty("_meta") ObjectNode meta) implements ResourceContents {

  /** Checks the required members. */
  public TextResourceContents {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(text, "text");
  }
}
