package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A link to a resource the client may read, inside a tool result or prompt.
 *
 * @param uri the resource URI
 * @param name the programmatic name
 * @param title a display name, or null
 * @param description a description, or null
 * @param mimeType the media type, or null
 * @param size the size in bytes, or null
 * @param icons icons, or null
 * @param annotations hints, or null
 * @param meta {@code _meta}, or null
 */
public record ResourceLink(String uri, String name, String title, String description,
    String mimeType, Long size, List<Icon> icons, Annotations annotations,
    @JsonProperty("_meta") ObjectNode meta) implements Content {

  /** Checks the required members. */
  public ResourceLink {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(name, "name");
    icons = icons == null ? null : List.copyOf(icons);
  }
}
