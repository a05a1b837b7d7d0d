package dev.keel.mcp.server.internal.cluster;

import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.ClusterBus;
import dev.keel.mcp.server.cluster.SessionDirectory;
import dev.keel.mcp.server.cluster.SessionRecord;
import java.net.URI;
import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The cluster of one process. Its directory lists nothing (the session table is the only list)
 * and its bus delivers nothing: a server on one node tells its sessions directly.
 */
public final class SingleNode implements Cluster, SessionDirectory, ClusterBus {

  /** The one instance. */
  public static final SingleNode INSTANCE = new SingleNode();

  private final String id = "node-" + UUID.randomUUID();

  private SingleNode() {}

  @Override
  public String nodeId() {
    return id;
  }

  @Override
  public boolean shared() {
    return false;
  }

  @Override
  public void join(URI address) {
    // no one to tell
  }

  @Override
  public Optional<URI> addressOf(String nodeId) {
    return Optional.empty();
  }

  @Override
  public SessionDirectory sessions() {
    return this;
  }

  @Override
  public ClusterBus bus() {
    return this;
  }

  @Override
  public Optional<String> problem() {
    return Optional.empty();
  }

  @Override
  public void close() {
    // nothing held
  }

  @Override
  public Claim claim(SessionRecord record, int maxSessions, int maxPerOwner) {
    return Claim.CLAIMED;
  }

  @Override
  public Optional<SessionRecord> find(String sessionId) {
    return Optional.empty();
  }

  @Override
  public boolean move(String sessionId, String fromNode, String toNode) {
    return false;
  }

  @Override
  public Set<String> renew(Collection<SessionRecord> held) {
    return Set.of();
  }

  @Override
  public void remove(String sessionId, String owner) {
    // nothing listed
  }

  @Override
  public void publish(String topic, String message) {
    // no other node
  }

  @Override
  public void subscribe(String topic, Consumer<String> listener) {
    // no other node
  }
}
