package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * One page of a {@code resourceTemplates} list.
 *
 * @param resourceTemplates the items of this page
 * @param nextCursor the cursor of the next page, or null on the last page
 * @param meta {@code _meta}, or null
 */
public record ListResourceTemplatesResult(List<ResourceTemplate> resourceTemplates, String nextCursor,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the items. */
  public ListResourceTemplatesResult {
    resourceTemplates = resourceTemplates == null ? List.of() : List.copyOf(resourceTemplates);
  }
}
