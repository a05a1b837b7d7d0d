package dev.keel.mcp.server.cluster;

import dev.keel.mcp.server.internal.cluster.SingleNode;
import java.net.URI;
import java.util.Optional;

/**
 * The nodes of one server behind a load balancer, as one of them sees the others: its own id,
 * where each live node can be reached, the session directory and the bus. Given to
 * {@code McpServer.Builder.cluster}; the HTTP transport announces the node's address with
 * {@link #join} once it listens.
 *
 * <p>Every method that needs the shared store throws {@link ClusterUnavailableException} when
 * it cannot be reached within the implementation's timeout: nothing falls back to local state.
 */
public interface Cluster extends AutoCloseable {

  /** Returns the cluster of one: this process alone, nothing shared, nothing forwarded. */
  static Cluster single() {
    return SingleNode.INSTANCE;
  }

  /** Returns this node's id: random per process, never reused. */
  String nodeId();

  /** Returns false for {@link #single()}: transports skip every cluster step. */
  boolean shared();

  /**
   * Announces where other nodes reach this node's endpoint (its MCP URL on the internal network)
   * and keeps announcing it while the node lives.
   */
  void join(URI address);

  /** Returns the endpoint of a live node; empty when it is unknown or has stopped announcing. */
  Optional<URI> addressOf(String nodeId);

  /** Returns the directory of legacy sessions. */
  SessionDirectory sessions();

  /** Returns the bus. */
  ClusterBus bus();

  /** Returns why the shared store cannot be used now, or empty when it can (for health). */
  Optional<String> problem();

  /** Stops announcing this node and lets go of the store. */
  @Override
  void close();
}
