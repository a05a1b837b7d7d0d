package dev.keel.mcp.server.cluster;

import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * What every node knows of a legacy session: enough to check its owner, to find the node that
 * holds it, and for another node to take it over when that node died.
 *
 * @param id the session id
 * @param owner the fingerprint of the principal that created it
 * @param node the id of the node that holds it
 * @param protocolVersion the negotiated protocol version
 * @param clientCapabilities what the client declared at {@code initialize}, or null
 * @param clientInfo the client's name and version as sent, or null
 */
public record SessionRecord(String id, String owner, String node, String protocolVersion,
    ObjectNode clientCapabilities, ObjectNode clientInfo) {

  /** Checks the required fields. */
  public SessionRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(node, "node");
    Objects.requireNonNull(protocolVersion, "protocolVersion");
  }

  /** Returns the same record held by another node. */
  public SessionRecord movedTo(String otherNode) {
    return new SessionRecord(id, owner, otherNode, protocolVersion, clientCapabilities,
        clientInfo);
  }
}
