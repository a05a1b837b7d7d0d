package dev.keel.mcp.server.internal.operations;

import dev.keel.mcp.core.Text;
import dev.keel.mcp.server.ServerOperations;
import dev.keel.mcp.server.internal.dispatch.ServerCore;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.internal.subscriptions.SubscriptionRegistry;
import dev.keel.mcp.server.internal.tasks.TaskEngine;
import dev.keel.mcp.server.spi.StoredTask;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The operator's view over the server's shared state. */
public final class RealServerOperations implements ServerOperations {

  private static final Logger LOG = LoggerFactory.getLogger(ServerOperations.class);

  private final ServerCore core;

  /** Creates the view over {@code core}. */
  public RealServerOperations(ServerCore core) {
    this.core = core;
  }

  /** Returns a short hash of a session id: enough to tell sessions apart, useless to open one. */
  public static String fingerprint(String sessionId) {
    if (sessionId == null) {
      return null;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256")
          .digest(sessionId.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("the JDK lacks SHA-256", e);
    }
  }

  @Override
  public List<Session> sessions() {
    long now = System.nanoTime();
    List<RealServerSession> all = new ArrayList<>(core.sessions().all());
    all.sort(Comparator.comparingLong(RealServerSession::createdNanos));
    List<Session> out = new ArrayList<>(all.size());
    for (RealServerSession s : all) {
      if (s.isClosed()) {
        continue;
      }
      out.add(new Session(fingerprint(s.id()), s.owner().fingerprint(),
          s.protocolVersion() == null ? "legacy" : s.protocolVersion(),
          millis(now - s.createdNanos()), millis(now - s.lastActivityNanos()),
          (s.hasListener() ? 1 : 0) + s.requestsRunning(), s.subscriptionCount()));
    }
    return out;
  }

  @Override
  public List<Request> requests() {
    long now = System.nanoTime();
    List<Request> out = new ArrayList<>();
    for (InFlightTable.Entry e : core.inFlight().all()) {
      out.add(new Request(e.handle(), e.method(), e.tool(), millis(now - e.startNanos()),
          e.principal(), e.modern() ? "modern" : "legacy", fingerprint(e.sessionId())));
    }
    return out;
  }

  @Override
  public List<Task> tasks() {
    Instant now = Instant.now();
    List<Task> out = new ArrayList<>();
    for (TaskEngine.Described d : core.tasks().described()) {
      Optional<StoredTask> stored = core.tasks().store().get(d.taskId());
      if (stored.isEmpty()) {
        continue; // expired or dropped: nothing left to show or cancel
      }
      StoredTask t = stored.get();
      Instant end = t.status().terminal() ? t.lastUpdatedAt() : now;
      out.add(new Task(t.taskId(), t.status().wireName(), d.principal(), d.tool(),
          t.createdAt().toEpochMilli(), Math.max(0, end.toEpochMilli()
              - t.createdAt().toEpochMilli())));
    }
    return out;
  }

  @Override
  public List<Subscription> subscriptions() {
    List<Subscription> out = new ArrayList<>();
    for (RealServerSession s : core.sessions().all()) {
      if (!s.isClosed() && s.subscriptionCount() > 0) {
        out.add(new Subscription(fingerprint(s.id()), s.subscriptionCount()));
      }
    }
    Map<String, Integer> listens = new LinkedHashMap<>();
    for (SubscriptionRegistry.Subscription s : core.subscriptions().open()) {
      listens.merge("listen:" + s.fingerprint(),
          s.kinds().size() + s.uris().size() + s.taskIds().size(), Integer::sum);
    }
    listens.forEach((scope, n) -> out.add(new Subscription(scope, n)));
    return out;
  }

  @Override
  public Map<Integer, Long> errorsByCode() {
    return core.pulse().errorsByCode();
  }

  @Override
  public List<Sample> samples() {
    return core.pulse().samples();
  }

  @Override
  public boolean cancelRequest(String handle, String operator) {
    Optional<InFlightTable.Entry> found = core.inFlight().get(handle);
    if (found.isEmpty()) {
      return false;
    }
    InFlightTable.Entry e = found.get();
    String reason = "operator " + Text.safe(operator);
    // Marked first: the handler that wakes up must already know whose cancel it was.
    e.byOperator().set(true);
    boolean tripped = e.scope() != null
        // the same registry notifications/cancelled trips, under the same (scope, id)
        ? core.cancellations().cancel(e.scope(), e.requestId(), reason)
        // no scope: only the request's own stream can cancel it, through this same token
        : e.source().cancel(reason);
    LOG.info("operator {} cancelled {} {} ({}): {}", Text.safe(operator), e.method(),
        e.tool() == null ? "" : Text.safe(e.tool()), handle,
        tripped ? "cancelled" : "already ending");
    return tripped;
  }

  @Override
  public boolean cancelTask(String taskId, String operator) {
    Optional<StoredTask> stored = taskId == null ? Optional.empty()
        : core.tasks().store().get(taskId);
    if (stored.isEmpty() || stored.get().status().terminal()) {
      LOG.info("operator {} asked to cancel a task that is not running", Text.safe(operator));
      return false;
    }
    // what tasks/cancel does for the task's owner
    core.tasks().cancel(taskId, "cancelled by operator " + Text.safe(operator));
    LOG.info("operator {} cancelled task {}", Text.safe(operator), Text.safe(taskId));
    return true;
  }

  private static long millis(long nanos) {
    return Math.max(0, nanos / 1_000_000);
  }
}
