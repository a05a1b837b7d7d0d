package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import dev.keel.mcp.server.spi.TaskStore;
import dev.keel.mcp.server.transport.HandlerThreads;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates, finds, runs, cancels and expires tasks: the store holds their state, this engine
 * their handler threads. A task belongs to the principal (and, in the legacy era, the session)
 * that created it; to anyone else it does not exist.
 */
public final class TaskEngine {

  private static final Logger LOG = LoggerFactory.getLogger(TaskEngine.class);
  private static final Base64.Encoder IDS = Base64.getUrlEncoder().withoutPadding();

  /**
   * The engine's limits.
   *
   * @param defaultTtl how long a task is kept when the client asks for nothing
   * @param maxTtl the longest a client may ask for
   * @param pollInterval the poll interval suggested to clients
   * @param maxActivePerPrincipal the most tasks one principal may have running at once
   */
  public record Limits(Duration defaultTtl, Duration maxTtl, Duration pollInterval,
      int maxActivePerPrincipal) {}

  /** Why a task could not be created. */
  public enum Refusal {
    /** The principal already has the most running tasks it may have. */
    TOO_MANY_ACTIVE,
    /** The store is full of running tasks. */
    STORE_FULL
  }

  /**
   * Reaches a task's handler on another node (a shared store): the store says what a task is,
   * but only the node that runs it can stop it or hand it answers.
   */
  public interface Relay {
    /** Asks the node that runs {@code taskId} to cancel it. */
    void cancel(String taskId, String reason);

    /** Hands {@code answers} to the node that runs {@code taskId}. */
    void answer(String taskId, tools.jackson.databind.node.ObjectNode answers);
  }

  private final TaskStore store;
  private final Relay relay;
  private final Limits limits;
  private final Clock clock;
  private final Consumer<StoredTask> onChange;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, TaskRun> runs = new ConcurrentHashMap<>();
  private final Map<String, Integer> active = new ConcurrentHashMap<>();
  private final ExecutorService threads = HandlerThreads.newExecutor("keel-task");

  /**
   * Creates an engine.
   *
   * @param onChange told of every status change (for status notifications); it must not block
   */
  public TaskEngine(TaskStore store, Limits limits, Clock clock, ScheduledExecutorService timer,
      Consumer<StoredTask> onChange, Relay relay) {
    this.store = Objects.requireNonNull(store, "store");
    this.relay = Objects.requireNonNull(relay, "relay");
    this.limits = limits;
    this.clock = clock;
    this.onChange = onChange;
    long sweep = Math.max(100, Math.min(1_000, limits.defaultTtl().toMillis() / 4));
    timer.scheduleWithFixedDelay(this::expire, sweep, sweep, TimeUnit.MILLISECONDS);
  }

  Instant now() {
    return clock.instant();
  }

  /** Returns the store. */
  public TaskStore store() {
    return store;
  }

  /**
   * Creates a task in {@code working} and its live run; the task is in the store (visible to
   * {@code tasks/get}) when this returns.
   *
   * @param requestedTtl the ttl the client asked for in milliseconds, or null
   * @return the run, or the reason there is none
   */
  public Created create(String owner, String sessionId, boolean modern, Long requestedTtl,
      boolean interruptOnCancel) {
    int[] count = new int[1];
    active.compute(owner, (k, n) -> {
      int current = n == null ? 0 : n;
      count[0] = current;
      return current >= limits.maxActivePerPrincipal() ? current : current + 1;
    });
    if (count[0] >= limits.maxActivePerPrincipal()) {
      return new Created(null, null, Refusal.TOO_MANY_ACTIVE);
    }
    long ttl = limits.defaultTtl().toMillis();
    if (requestedTtl != null && requestedTtl > 0) {
      ttl = Math.min(requestedTtl, limits.maxTtl().toMillis());
    }
    Instant now = now();
    String id = newId();
    TaskRun run = new TaskRun(this, id, owner, sessionId, modern, interruptOnCancel);
    runs.put(id, run);
    StoredTask task = new StoredTask(id, owner, sessionId, modern, TaskStatus.WORKING, null, now,
        now, ttl, limits.pollInterval().toMillis(), null, null, null);
    if (!store.create(task)) {
      runs.remove(id);
      release(owner);
      return new Created(null, null, Refusal.STORE_FULL);
    }
    return new Created(run, task, null);
  }

  /**
   * What an operator sees of a task besides its stored state.
   *
   * @param taskId the task
   * @param tool the tool it runs
   * @param principal the name of the principal that created it
   */
  public record Described(String taskId, String tool, String principal) {}

  /** The most tasks {@link #described()} remembers. */
  public static final int DESCRIBED = 200;

  private final Map<String, Described> described = new java.util.LinkedHashMap<>() {
    private static final long serialVersionUID = 1L;

    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Described> eldest) {
      return size() > DESCRIBED;
    }
  };

  /** Remembers which tool a task created here runs and who asked, for the operator. */
  public void describe(String taskId, String tool, String principal) {
    synchronized (described) {
      described.put(taskId, new Described(taskId, tool, principal));
    }
  }

  /** Returns the last {@link #DESCRIBED} tasks created here, oldest first. */
  public List<Described> described() {
    synchronized (described) {
      return List.copyOf(described.values());
    }
  }

  /**
   * The outcome of {@link #create}.
   *
   * @param run the run, or null when refused
   * @param seed the task as created (what the client is answered), or null when refused
   * @param refusal why it was refused, or null
   */
  public record Created(TaskRun run, StoredTask seed, Refusal refusal) {}

  private String newId() {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return IDS.encodeToString(bytes);
  }

  /**
   * Runs {@code body} on a handler thread of its own; when it returns, the run is over (its
   * outcome must already be recorded).
   */
  public void start(TaskRun run, Runnable body) {
    try {
      threads.execute(() -> {
        try {
          body.run();
        } finally {
          finishRun(run);
        }
      });
    } catch (RejectedExecutionException e) {
      run.fail(new dev.keel.mcp.core.jsonrpc.JsonRpcError(
          dev.keel.mcp.core.ErrorCodes.INTERNAL_ERROR, "Internal error", null));
      finishRun(run);
    }
  }

  private void finishRun(TaskRun run) {
    if (runs.remove(run.taskId(), run)) {
      release(run.owner());
    }
    run.ended(false);
  }

  private void release(String owner) {
    active.computeIfPresent(owner, (k, n) -> n <= 1 ? null : n - 1);
  }

  /**
   * Returns the task when {@code owner} (and, for a legacy task, {@code sessionId}) owns it.
   * Another principal's task, another session's task, an expired and an unknown task all look
   * the same: empty.
   */
  public Optional<StoredTask> find(String taskId, String owner, String sessionId) {
    if (taskId == null) {
      return Optional.empty();
    }
    Optional<StoredTask> found = store.get(taskId);
    if (found.isEmpty()) {
      return found;
    }
    StoredTask task = found.get();
    if (!task.owner().equals(owner) || !Objects.equals(task.sessionId(), sessionId)) {
      return Optional.empty();
    }
    if (!task.expiresAt().isAfter(now())) {
      drop(taskId);
      return Optional.empty();
    }
    return found;
  }

  /** Returns the live run of a task found with {@link #find}, if its handler still runs. */
  public Optional<TaskRun> run(String taskId) {
    return Optional.ofNullable(runs.get(taskId));
  }

  /** Returns the tasks of one owner (and session), oldest first. */
  public List<StoredTask> list(String owner, String sessionId) {
    Instant now = now();
    List<StoredTask> mine = new ArrayList<>();
    for (StoredTask t : store.byOwner(owner)) {
      if (Objects.equals(t.sessionId(), sessionId) && t.expiresAt().isAfter(now)) {
        mine.add(t);
      }
    }
    return mine;
  }

  /** Changes a task in the store and tells the listener; a run whose task ended is told. */
  void update(TaskRun run, UnaryOperator<StoredTask> change) {
    Optional<StoredTask> before = store.get(run.taskId());
    Optional<StoredTask> after = store.update(run.taskId(), change);
    if (after.isEmpty()) {
      return;
    }
    StoredTask t = after.get();
    boolean changed = before.isEmpty() || before.get().status() != t.status()
        || before.get().inputRequests() != t.inputRequests();
    if (changed) {
      try {
        onChange.accept(t);
      } catch (RuntimeException e) {
        LOG.warn("task status listener failed", e);
      }
    }
    if (t.status().terminal()) {
      run.ended().complete(null);
    }
  }

  /**
   * Cancels a task: its run when its handler still runs here, else its stored state. A task
   * that already ended does not change.
   */
  public void cancel(String taskId, String reason) {
    TaskRun run = runs.get(taskId);
    if (run != null) {
      run.cancel(reason);
      return;
    }
    Optional<StoredTask> before = store.get(taskId);
    if (before.isPresent() && !before.get().status().terminal()) {
      // its handler may run on another node: the store shows it cancelled at once, the relay
      // stops the work there
      relay.cancel(taskId, reason);
    }
    store.update(taskId, t -> t.finished(TaskStatus.CANCELLED, "The task was cancelled", null,
        null, now())).ifPresent(t -> {
          if (before.isPresent() && before.get().status() != t.status()) {
            onChange.accept(t);
          }
        });
  }

  /**
   * Cancels a task whose handler runs here, for another node that was asked to (the relay):
   * a task that is not running here is not touched.
   */
  public void cancelHere(String taskId, String reason) {
    TaskRun run = runs.get(taskId);
    if (run != null) {
      run.cancel(reason);
    }
  }

  /** Hands answers to a task's handler, here or, through the relay, on the node that runs it. */
  public void answer(String taskId, tools.jackson.databind.node.ObjectNode answers) {
    TaskRun run = runs.get(taskId);
    if (run != null) {
      run.answer(answers);
      return;
    }
    Optional<StoredTask> before = store.get(taskId);
    if (before.isEmpty() || before.get().inputRequests() == null) {
      return;
    }
    for (Map.Entry<String, tools.jackson.databind.JsonNode> e : answers.properties()) {
      if (before.get().inputRequests().has(e.getKey())
          && !(e.getValue() instanceof tools.jackson.databind.node.ObjectNode)) {
        throw dev.keel.mcp.core.McpException.invalidParams("Invalid input response: "
            + e.getKey());
      }
    }
    // The store shows the answered questions gone before the acknowledgement, as on one node;
    // the handler on the other node gets the answers over the relay and ends the wait.
    store.update(taskId, t -> {
      if (t.status() != TaskStatus.INPUT_REQUIRED || t.inputRequests() == null) {
        return t;
      }
      tools.jackson.databind.node.ObjectNode open = t.inputRequests().deepCopy();
      answers.propertyNames().forEach(open::remove);
      return open.isEmpty() ? t.withStatus(TaskStatus.WORKING, null, now())
          : t.withInputRequests(open, now());
    }).ifPresent(t -> {
      if (t.status() != before.get().status()) {
        onChange.accept(t);
      }
    });
    relay.answer(taskId, answers);
  }

  /** Hands answers to a task's handler only if it runs here (what the relay delivers). */
  public void answerHere(String taskId, tools.jackson.databind.node.ObjectNode answers) {
    TaskRun run = runs.get(taskId);
    if (run != null) {
      run.answer(answers);
    }
  }

  /** Returns true while a task of the legacy session {@code sessionId} runs here. */
  public boolean runsFor(String sessionId) {
    for (TaskRun run : runs.values()) {
      if (sessionId.equals(run.sessionId())) {
        return true;
      }
    }
    return false;
  }

  /** Cancels the running tasks of a legacy session that ended; nobody can reach them now. */
  public void sessionEnded(String sessionId) {
    for (TaskRun run : List.copyOf(runs.values())) {
      if (sessionId.equals(run.sessionId())) {
        run.cancel("session ended");
      }
    }
  }

  private void expire() {
    try {
      for (String id : store.removeExpired(now())) {
        TaskRun run = runs.get(id);
        if (run != null) {
          run.ended(true);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("task expiry failed", e);
    }
  }

  private void drop(String taskId) {
    store.remove(taskId);
    TaskRun run = runs.get(taskId);
    if (run != null) {
      run.ended(true);
    }
  }

  /**
   * Returns how many principals the limit on running tasks counts for: only those running one,
   * or the count would keep an entry for every principal that ever ran a task.
   */
  int countedPrincipals() {
    return active.size();
  }

  /** Returns how many tasks run now. */
  public int running() {
    return runs.size();
  }

  /** Cancels every running task and stops the handler threads. */
  public void close() {
    for (TaskRun run : List.copyOf(runs.values())) {
      run.cancel("server shutting down");
    }
    threads.shutdown();
  }
}
