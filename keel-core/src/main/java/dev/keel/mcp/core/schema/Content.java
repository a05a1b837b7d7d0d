package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * A content block in a tool result, a prompt message or a sampling message, told apart by its
 * {@code type} member.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = TextContent.class, name = "text"),
    @JsonSubTypes.Type(value = ImageContent.class, name = "image"),
    @JsonSubTypes.Type(value = AudioContent.class, name = "audio"),
    @JsonSubTypes.Type(value = ResourceLink.class, name = "resource_link"),
    @JsonSubTypes.Type(value = EmbeddedResource.class, name = "resource"),
    @JsonSubTypes.Type(value = ToolUseContent.class, name = "tool_use"),
    @JsonSubTypes.Type(value = ToolResultContent.class, name = "tool_result")
})
public sealed interface Content permits TextContent, ImageContent, AudioContent, ResourceLink,
    EmbeddedResource, ToolUseContent, ToolResultContent {

  /** Returns a text block. */
  static TextContent text(String text) {
    return new TextContent(text, null, null);
  }

  /** Returns an image block from base64 data. */
  static ImageContent image(String base64, String mimeType) {
    return new ImageContent(base64, mimeType, null, null);
  }

  /** Returns an audio block from base64 data. */
  static AudioContent audio(String base64, String mimeType) {
    return new AudioContent(base64, mimeType, null, null);
  }

  /** Returns a block embedding a resource's contents. */
  static EmbeddedResource resource(ResourceContents contents) {
    return new EmbeddedResource(contents, null, null);
  }
}
