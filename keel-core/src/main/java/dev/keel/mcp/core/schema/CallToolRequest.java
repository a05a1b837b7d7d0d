package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code tools/call}.
 *
 * @param name the tool
 * @param arguments the arguments, or null (treated as {@code {}})
 * @param task task augmentation ({@code {ttl}}, 2025-11-25), or null
 * @param meta {@code _meta} (may carry {@code progressToken}), or null
 */
public record CallToolRequest(String name, ObjectNode arguments, ObjectNode task,
    @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the name. */
  public CallToolRequest {
    Objects.requireNonNull(name, "name");
  }
}
