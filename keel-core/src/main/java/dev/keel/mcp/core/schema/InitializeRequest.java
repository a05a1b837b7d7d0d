package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The params of {@code initialize} (legacy eras).
 *
 * @param protocolVersion the newest version the client speaks
 * @param capabilities what the client can do
 * @param clientInfo the client's name and version
 * @param meta {@code _meta}, or null
 */
public record InitializeRequest(String protocolVersion, ClientCapabilities capabilities,
    Implementation clientInfo, @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the required members; missing capabilities mean none. */
  public InitializeRequest {
    Objects.requireNonNull(protocolVersion, "protocolVersion");
    capabilities = capabilities == null ? ClientCapabilities.none() : capabilities;
  }
}
