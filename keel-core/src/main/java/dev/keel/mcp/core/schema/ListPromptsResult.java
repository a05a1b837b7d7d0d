package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * One page of a {@code prompts} list.
 *
 * @param prompts the items of this page
 * @param nextCursor the cursor of the next page, or null on the last page
 * @param meta {@code _meta}, or null
 */
public record ListPromptsResult(List<Prompt> prompts, String nextCursor,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Copies the items. */
  public ListPromptsResult {
    prompts = prompts == null ? List.of() : List.copyOf(prompts);
  }
}
