package dev.keel.mcp.server.internal.cluster;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.ClusterUnavailableException;
import dev.keel.mcp.server.cluster.SessionDirectory;
import dev.keel.mcp.server.cluster.SessionRecord;
import dev.keel.mcp.server.internal.session.RealServerSession;
import java.util.Collection;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server's side of the cluster: lists its sessions in the directory and carries on the bus
 * what another node must act on. Each bus message names the node that sent it, and a node
 * ignores its own: what concerns this node was already done here, directly.
 */
public final class ClusterLink {

  /** What a node does with what another node sent. */
  public interface Local {
    /** A resource changed on another node: tell this node's subscribers. */
    void resourceUpdated(String uri);

    /** A notification for a session: send it if the session is held here. */
    void notify(String sessionId, String method, ObjectNode params);

    /** A task's cancellation: stop its handler if it runs here. */
    void cancelTask(String taskId, String reason);

    /** Answers to a task's questions: hand them over if its handler runs here. */
    void answerTask(String taskId, ObjectNode answers);

    /** A stateless task changed on another node: tell this node's listen streams. */
    void taskChanged(String taskId, ObjectNode detailed);
  }

  private static final Logger LOG = LoggerFactory.getLogger(ClusterLink.class);
  private static final String RESOURCE = "resource-updated";
  private static final String NOTIFY = "notify";
  private static final String CANCEL_TASK = "task-cancel";
  private static final String ANSWER_TASK = "task-answer";
  private static final String TASK_CHANGED = "task-changed";

  private final Cluster cluster;
  private final McpJson json;
  private volatile boolean leaving;
  /**
   * The sessions this node listed (claimed, or took over): only those are renewed. A session
   * between its creation and its claim is not, or a renewal could list it first, past the
   * limits, and make its own claim fail.
   */
  private final java.util.Set<String> listed = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** Links a server to its cluster; with {@link Cluster#single()} every step does nothing. */
  public ClusterLink(Cluster cluster, McpJson json, Local local) {
    this.cluster = cluster;
    this.json = json;
    if (!cluster.shared()) {
      return;
    }
    on(RESOURCE, m -> local.resourceUpdated(m.path("uri").asString()));
    on(NOTIFY, m -> local.notify(m.path("session").asString(), m.path("method").asString(),
        m.get("params") instanceof ObjectNode p ? p : null));
    on(CANCEL_TASK, m -> local.cancelTask(m.path("task").asString(),
        m.path("reason").asString("cancelled")));
    on(ANSWER_TASK, m -> {
      if (m.get("answers") instanceof ObjectNode a) {
        local.answerTask(m.path("task").asString(), a);
      }
    });
    on(TASK_CHANGED, m -> {
      if (m.get("task") instanceof ObjectNode t) {
        local.taskChanged(m.path("id").asString(), t);
      }
    });
  }

  private void on(String topic, Consumer<JsonNode> action) {
    cluster.bus().subscribe(topic, text -> {
      try {
        JsonNode message = json.mapper().readTree(text);
        if (!cluster.nodeId().equals(message.path("from").asString())) {
          action.accept(message);
        }
      } catch (RuntimeException e) {
        LOG.warn("ignored a cluster message on {}: {}", topic, e.toString());
      }
    });
  }

  /** Returns the cluster. */
  public Cluster cluster() {
    return cluster;
  }

  /** Returns true when there are other nodes to tell. */
  public boolean shared() {
    return cluster.shared();
  }

  /**
   * Lists a session that {@code initialize} just created, under the cluster's limits.
   *
   * @return false when a cluster-wide limit is reached
   * @throws ClusterUnavailableException when the directory cannot be reached
   */
  public boolean claim(RealServerSession session, int maxSessions, int maxPerOwner) {
    if (!cluster.shared()) {
      return true;
    }
    boolean claimed = cluster.sessions().claim(record(session), maxSessions, maxPerOwner)
        == SessionDirectory.Claim.CLAIMED;
    if (claimed) {
      listed.add(session.id());
    }
    return claimed;
  }

  /** A session this node took over from one that died: it is listed here now. */
  public void adopted(RealServerSession session) {
    if (cluster.shared()) {
      listed.add(session.id());
    }
  }

  private SessionRecord record(RealServerSession session) {
    ObjectNode caps = session.clientCapabilities() == null ? null
        : (ObjectNode) json.toTree(session.clientCapabilities());
    ObjectNode info = session.clientInfo() == null ? null
        : (ObjectNode) json.toTree(session.clientInfo());
    return new SessionRecord(session.id(), session.owner().fingerprint(), cluster.nodeId(),
        session.protocolVersion(), caps, info);
  }

  /**
   * The node is shutting down: the sessions it closes now stay listed, so that other nodes take
   * them over at their next request (a rolling restart ends no session) instead of answering
   * 404.
   */
  public void leave() {
    leaving = true;
  }

  /** Unlists a session that ended here; a directory out of reach lets it lapse instead. */
  public void closed(RealServerSession session) {
    if (!cluster.shared() || !listed.remove(session.id()) || leaving) {
      return;
    }
    try {
      cluster.sessions().remove(session.id(), session.owner().fingerprint());
    } catch (RuntimeException e) {
      LOG.warn("session {} stays listed until its listing lapses: {}", session.id(),
          e.toString());
    }
  }

  /**
   * Renews the listings of the sessions held here, lists again those the store lost, and closes
   * here those another node took over (this node seemed dead to it: only one may serve them).
   */
  public void renew(Collection<RealServerSession> sessions) {
    if (!cluster.shared() || sessions.isEmpty()) {
      return;
    }
    java.util.Map<String, RealServerSession> held = new java.util.HashMap<>();
    for (RealServerSession s : sessions) {
      if (listed.contains(s.id()) && !s.isClosed()) {
        held.put(s.id(), s);
      }
    }
    try {
      for (String lost : cluster.sessions().renew(held.values().stream().map(this::record)
          .toList())) {
        RealServerSession s = held.get(lost);
        if (s != null) {
          LOG.warn("session {} is held by another node now; closing it here", lost);
          s.close();
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("could not renew {} session listings: {}", held.size(), e.toString());
    }
  }

  /** Tells the other nodes a resource changed. */
  public void resourceUpdated(String uri) {
    publish(RESOURCE, message().put("uri", uri));
  }

  /**
   * Sends a notification to a session another node holds.
   *
   * @return true when the directory lists the session (the node that holds it sends it)
   */
  public boolean notifyElsewhere(String sessionId, String method, ObjectNode params) {
    if (!cluster.shared() || cluster.sessions().find(sessionId).isEmpty()) {
      return false;
    }
    ObjectNode m = message().put("session", sessionId).put("method", method);
    if (params != null) {
      m.set("params", params);
    }
    publish(NOTIFY, m);
    return true;
  }

  /** Asks the node that runs a task to stop it. */
  public void cancelTask(String taskId, String reason) {
    publish(CANCEL_TASK, message().put("task", taskId).put("reason", reason));
  }

  /** Hands answers to the node that runs a task. */
  public void answerTask(String taskId, ObjectNode answers) {
    ObjectNode m = message().put("task", taskId);
    m.set("answers", answers);
    publish(ANSWER_TASK, m);
  }

  /** Tells the other nodes' listen streams that a stateless task changed. */
  public void taskChanged(String taskId, ObjectNode detailed) {
    ObjectNode m = message().put("id", taskId);
    m.set("task", detailed);
    publish(TASK_CHANGED, m);
  }

  private ObjectNode message() {
    return McpJson.object().put("from", cluster.nodeId());
  }

  private void publish(String topic, ObjectNode message) {
    if (!cluster.shared()) {
      return;
    }
    try {
      cluster.bus().publish(topic, message.toString());
    } catch (RuntimeException e) {
      LOG.warn("could not tell the other nodes ({}): {}", topic, e.toString());
    }
  }
}
