package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A resource's contents embedded in a tool result or prompt.
 *
 * @param resource the contents
 * @param annotations hints, or null
 * @param meta {@code _meta}, or null
 */
public record EmbeddedResource(ResourceContents resource, Annotations annotations,
    @JsonProperty("_meta") ObjectNode meta) implements Content {

  /** Checks the contents. */
  public EmbeddedResource {
    Objects.requireNonNull(resource, "resource");
  }
}
