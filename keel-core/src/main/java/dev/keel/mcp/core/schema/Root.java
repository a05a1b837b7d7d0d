package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * A root the client exposes, normally a {@code file://} directory.
 *
 * @param uri its URI
 * @param name a display name, or null
 * @param meta {@code _meta}, or null
 */
public record Root(String uri, String name, @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the URI. */
  public Root {
    Objects.requireNonNull(uri, "uri");
  }
}
