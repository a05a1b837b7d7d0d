package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A resource the server offers.
 *
 * @param uri its URI
 * @param name the programmatic name
 * @param title a display name, or null
 * @param description a description, or null
 * @param mimeType the media type, or null
 * @param size the size in bytes, or null
 * @param annotations hints, or null
 * @param icons icons, or null
 * @param meta {@code _meta}, or null
 */
public record Resource(String uri, String name, String title, String description,
    String mimeType, Long size, Annotations annotations, List<Icon> icons,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the required members. */
  public Resource {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(name, "name");
    icons = icons == null ? null : List.copyOf(icons);
  }

  /** Returns a resource with a URI, a name, a description and a media type. */
  public static Resource of(String uri, String name, String description, String mimeType) {
    return new Resource(uri, name, null, description, mimeType, null, null, null, null);
  }
}
