package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code resources/read}, {@code resources/subscribe} and
 * {@code resources/unsubscribe}.
 *
 * @param uri the resource URI
 * @param meta {@code _meta}, or null
 */
public record ReadResourceRequest(String uri, @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the URI. */
  public ReadResourceRequest {
    Objects.requireNonNull(uri, "uri");
  }
}
