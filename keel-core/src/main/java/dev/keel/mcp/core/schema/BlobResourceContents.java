package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * Binary contents of a resource, base64-encoded.
 *
 * @param uri the resource URI
 * @param mimeType the media type, or null
 * @param blob the base64 bytes
 * @param meta {@code _meta}, or null
 */
public record BlobResourceContents(String uri, String mimeType, String blob,
    @JsonProperty("_meta") ObjectNode meta) implements ResourceContents {

  /** Checks the required members. */
  public BlobResourceContents {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(blob, "blob");
  }
}
