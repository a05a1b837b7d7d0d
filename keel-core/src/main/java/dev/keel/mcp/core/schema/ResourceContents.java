package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import tools.jackson.databind.node.ObjectNode;

/** The contents of a resource: text or a base64 blob, told apart by which member is present. */
@JsonTypeInfo(use = JsonTypeInfo.Id.DEDUCTION)
@JsonSubTypes({
    @JsonSubTypes.Type(TextResourceContents.class),
    @JsonSubTypes.Type(BlobResourceContents.class)
})
public sealed interface ResourceContents permits TextResourceContents, BlobResourceContents {

  /** Returns the resource URI. */
  String uri();

  /** Returns the media type, or null. */
  String mimeType();

  /** Returns {@code _meta}, or null. */
  ObjectNode meta();

  /** Returns text contents. */
  static TextResourceContents text(String uri, String mimeType, String text) {
    return new TextResourceContents(uri, mimeType, text, null);
  }

  /** Returns binary contents from base64 data. */
  static BlobResourceContents blob(String uri, String mimeType, String base64) {
    return new BlobResourceContents(uri, mimeType, base64, null);
  }
}
