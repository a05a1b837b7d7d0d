package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * The result of {@code initialize}.
 *
 * @param protocolVersion the version the server chose
 * @param capabilities what the server offers
 * @param serverInfo the server's name and version
 * @param instructions how to use the server, for the model, or null
 * @param meta {@code _meta}, or null
 */
public record InitializeResult(String protocolVersion, ServerCapabilities capabilities,
    Implementation serverInfo, String instructions, @JsonProperty("_meta") ObjectNode meta) {

  /** Checks the required members. */
  public InitializeResult {
    Objects.requireNonNull(protocolVersion, "protocolVersion");
    Objects.requireNonNull(capabilities, "capabilities");
    Objects.requireNonNull(serverInfo, "serverInfo");
  }
}
