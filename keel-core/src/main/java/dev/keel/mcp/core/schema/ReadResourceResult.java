package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of {@code resources/read}.
 *
 * @param contents the contents (a resource may have several parts)
 * @param meta {@code _meta}, or null
 */
public record ReadResourceResult(List<ResourceContents> contents,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the contents. */
  public ReadResourceResult {
    contents = contents == null ? List.of() : List.copyOf(contents);
  }

  /** Returns a result of the given contents. */
  public static ReadResourceResult of(ResourceContents... contents) {
    return new ReadResourceResult(List.of(contents), null);
  }
}
