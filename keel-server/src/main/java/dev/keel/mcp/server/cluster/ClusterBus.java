package dev.keel.mcp.server.cluster;

import java.util.function.Consumer;

/**
 * Messages every node hears: a resource that changed, a notification for a session held
 * elsewhere, a task to cancel or to answer. At most once, in order per publisher; a node that is
 * not subscribed when a message is published never sees it (what must not be lost lives in the
 * store, not on the bus).
 */
public interface ClusterBus {

  /** Publishes {@code message} on {@code topic} to every node, this one included. */
  void publish(String topic, String message);

  /**
   * Calls {@code listener} with every message on {@code topic} from now on, on a thread of the
   * bus: a listener must not block.
   */
  void subscribe(String topic, Consumer<String> listener);
}
