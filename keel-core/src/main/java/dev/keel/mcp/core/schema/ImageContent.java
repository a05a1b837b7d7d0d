package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * An image, base64-encoded.
 *
 * @param data the base64 bytes
 * @param mimeType the media type, such as {@code image/png}
 * @param annotations hints, or null
 * @param meta {@code _meta}, or null
 */
public record ImageContent(String data, String mimeType, Annotations annotations,
    @JsonProperty("_meta") ObjectNode meta) implements Content {

  /** Checks the required members. */
  public ImageContent {
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(mimeType, "mimeType");
  }
}
