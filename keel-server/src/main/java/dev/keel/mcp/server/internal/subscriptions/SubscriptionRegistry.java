package dev.keel.mcp.server.internal.subscriptions;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.internal.registry.FeatureKind;
import dev.keel.mcp.server.transport.RequestStream;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The open {@code subscriptions/listen} streams of the stateless era.
 *
 * <p>Each subscription belongs to the principal that opened it (bounded per principal) and to
 * its stream; it receives only the kinds it asked for, every message tagged with its
 * {@code subscriptionId}. It ends when its stream goes away, when the client cancels it (stdio),
 * or on shutdown, when it gets both a {@code notifications/cancelled} and a final result (the
 * specification's two texts disagree on which one a client should expect).
 */
public final class SubscriptionRegistry {

  /**
   * One open subscription.
   *
   * @param id the id of the listen request, which is its subscription id
   * @param idJson the same id as sent
   * @param fingerprint its owner
   * @param stream where its messages go
   * @param scope the connection it came on, where a {@code notifications/cancelled} names it
   *     (stdio), or null
   * @param kinds the list changes it asked for
   * @param uris the resources whose updates it asked for
   * @param taskIds the tasks whose status changes it asked for (tasks extension)
   */
  public record Subscription(RequestId id, JsonNode idJson, String fingerprint,
      RequestStream stream, String scope, Set<FeatureKind> kinds, Set<String> uris,
      Set<String> taskIds) {}

  private final Set<Subscription> open = ConcurrentHashMap.newKeySet();
  private final Map<String, Integer> perPrincipal = new ConcurrentHashMap<>();
  private final int maxPerPrincipal;
  private final AtomicBoolean shutDown = new AtomicBoolean();

  /** Returns the open subscriptions, for the operator's view. */
  public java.util.List<Subscription> open() {
    return java.util.List.copyOf(open);
  }

  /** Creates a registry allowing {@code maxPerPrincipal} open subscriptions per principal. */
  public SubscriptionRegistry(int maxPerPrincipal) {
    this.maxPerPrincipal = maxPerPrincipal;
  }

  /**
   * Registers a subscription.
   *
   * @return false when its principal already holds the maximum or the server is shutting down
   */
  public synchronized boolean add(Subscription subscription) {
    int count = perPrincipal.getOrDefault(subscription.fingerprint(), 0);
    if (shutDown.get() || count >= maxPerPrincipal) {
      return false;
    }
    perPrincipal.put(subscription.fingerprint(), count + 1);
    open.add(subscription);
    return true;
  }

  /** Removes a subscription; later calls do nothing. */
  public synchronized void remove(Subscription subscription) {
    if (open.remove(subscription)) {
      perPrincipal.computeIfPresent(subscription.fingerprint(), (k, n) -> n <= 1 ? null : n - 1);
    }
  }

  /** Ends the subscription a client cancelled on the connection {@code scope} (stdio). */
  public boolean cancel(String scope, RequestId id) {
    for (Subscription s : List.copyOf(open)) {
      if (scope.equals(s.scope()) && s.id().equals(id)) {
        remove(s);
        s.stream().release();
        return true;
      }
    }
    return false;
  }

  /** Tells the subscriptions that asked for it that a list changed. */
  public void listChanged(FeatureKind kind) {
    for (Subscription s : List.copyOf(open)) {
      if (s.kinds().contains(kind)) {
        s.stream().send(new JsonRpcNotification(kind.notification(), tagged(s)));
      }
    }
  }

  /** Tells the subscriptions watching {@code uri} that it changed; returns how many. */
  public int resourceUpdated(String uri) {
    int told = 0;
    for (Subscription s : List.copyOf(open)) {
      if (s.uris().contains(uri)) {
        ObjectNode params = tagged(s);
        params.put("uri", uri);
        if (s.stream().send(new JsonRpcNotification("notifications/resources/updated", params))) {
          told++;
        }
      }
    }
    return told;
  }

  /**
   * Tells the subscriptions watching a task that its status changed ({@code notifications/tasks},
   * the task as {@code tasks/get} shows it).
   */
  public void taskChanged(String taskId, ObjectNode detailedTask) {
    for (Subscription s : List.copyOf(open)) {
      if (s.taskIds().contains(taskId)) {
        ObjectNode params = detailedTask.deepCopy();
        params.set("_meta", tagged(s).get("_meta"));
        s.stream().send(new JsonRpcNotification("notifications/tasks", params));
      }
    }
  }

  /** Returns the params of a message for this subscription: its id in {@code _meta}. */
  public static ObjectNode tagged(Subscription s) {
    ObjectNode params = McpJson.object();
    params.putObject("_meta").set(MetaKeys.SUBSCRIPTION_ID, s.idJson());
    return params;
  }

  /** Ends every subscription: a cancellation notice, then a final result, then the stream. */
  public void shutdown() {
    shutDown.set(true);
    for (Subscription s : List.copyOf(open)) {
      remove(s);
      ObjectNode cancelled = McpJson.object();
      cancelled.set("requestId", s.idJson());
      cancelled.put("reason", "server shutting down");
      s.stream().send(new JsonRpcNotification("notifications/cancelled", cancelled));
      ObjectNode result = McpJson.object();
      result.put("resultType", "complete");
      s.stream().send(new JsonRpcResponse(s.id(), result));
      s.stream().release();
    }
  }

  /** Returns how many subscriptions are open. */
  public int size() {
    return open.size();
  }
}
