package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of {@code roots/list}.
 *
 * @param roots the roots
 * @param meta {@code _meta}, or null
 */
public record ListRootsResult(List<Root> roots, @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the roots. */
  public ListRootsResult {
    roots = roots == null ? List.of() : List.copyOf(roots);
  }
}
