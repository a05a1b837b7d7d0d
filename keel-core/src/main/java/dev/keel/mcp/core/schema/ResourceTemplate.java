package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A family of resources named by an RFC 6570 URI template, such as
 * {@code db://tables/{table}/schema}.
 *
 * @param uriTemplate the template
 * @param name the programmatic name
 * @param title a display name, or null
 * @param description a description, or null
 * @param mimeType the media type of its resources, or null
 * @param annotations hints, or null
 * @param icons icons, or null
 * @param meta {@code _meta}, or null
 */
public record ResourceTemplate(String uriTemplate, String name, String title,
    String description, String mimeType, Annotations annotations, List<Icon> icons,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the required members. */
  public ResourceTemplate {
    Objects.requireNonNull(uriTemplate, "uriTemplate");
    Objects.requireNonNull(name, "name");
    icons = icons == null ? null : List.copyOf(icons);
  }

  /** Returns a template with a name, a description and a media type. */
  public static ResourceTemplate of(String uriTemplate, String name, String description,
      String mimeType) {
    return new ResourceTemplate(uriTemplate, name, null, description, mimeType, null, null, null);
  }
}
