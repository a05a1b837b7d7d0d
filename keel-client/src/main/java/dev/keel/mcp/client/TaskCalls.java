package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.TaskAnswers;
import dev.keel.mcp.client.internal.TaskLifetimes;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ServerCapabilities;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tool calls that run as tasks, in both eras: creating them, polling them at the server's
 * interval, answering their input requests, and refusing stale handles.
 *
 * <p>Legacy (2025-11-25): a {@code task} param asks for a task; {@code tasks/get} polls;
 * {@code tasks/result} collects the outcome, and the server's questions arrive on its stream as
 * ordinary server requests, answered by the handlers. Every request of a task is pinned to the
 * session the task was created in. Stateless (2026-07-28, extension
 * {@value #EXTENSION}): the server answers with {@code resultType: "task"}, {@code tasks/get}
 * inlines the outcome or the input requests, and answers go back with {@code tasks/update}.
 *
 * <p>It sees the client only through {@link TaskChannel}: what the era is, what the server
 * offers, and a way to send a task's requests; handles it makes are owned by this instance.
 */
final class TaskCalls {

  /** The 2026 tasks extension's identifier. */
  static final String EXTENSION = "io.modelcontextprotocol/tasks";
  /** The shortest wait between polls, whatever the server suggests. */
  static final long POLL_FLOOR_MS = 50;
  /** The longest wait between polls. */
  static final long POLL_CAP_MS = Duration.ofDays(1).toMillis();

  private static final Logger LOG = LoggerFactory.getLogger(TaskCalls.class);

  private final TaskChannel channel;
  private final TaskLifetimes lifetimes = new TaskLifetimes(TaskLifetimes.DEFAULT_MAX_TRACKED);
  private final Map<String, TaskAnswers> answers = new ConcurrentHashMap<>();

  TaskCalls(TaskChannel channel) {
    this.channel = channel;
  }

  /** True when the tool must run as a task and the server can run it so. */
  boolean mustRunAsTask(String tool) {
    return channel.taskSupport(tool).equals("required") && serverRunsTasks();
  }

  private boolean serverRunsTasks() {
    ServerCapabilities caps = channel.serverCapabilities();
    if (caps == null) {
      return false;
    }
    if (channel.era() == Era.MODERN) {
      return caps.extensions() != null && caps.extensions().has(EXTENSION);
    }
    return caps.tasks() != null && caps.tasks().path("requests").path("tools").has("call");
  }

  /** Creates the task; returns once the server has it. */
  Task create(ObjectNode params, Duration timeout) {
    String tool = params.get("name").asString();
    if (channel.taskSupport(tool).equals("forbidden")) {
      throw new IllegalArgumentException("tool " + tool + " does not run as a task (its "
          + "execution.taskSupport is forbidden or unknown)");
    }
    if (!serverRunsTasks()) {
      throw new IllegalArgumentException("the server does not run tool calls as tasks");
    }
    if (channel.era() == Era.MODERN) {
      JsonNode result = channel.send("tools/call", params, timeout, 0);
      if (!"task".equals(result.path("resultType").asString(""))) {
        // The server decided to answer at once: a completed handle carries the result.
        return new Task(null, Task.Status.COMPLETED, null, null, null, null, null, this, 0, 0,
            Results.parse(result, CallToolResult.class, "tools/call"));
      }
      return started(result, 0);
    }
    ObjectNode asTask = params.deepCopy();
    asTask.putObject("task");
    long epoch = channel.currentSession();
    JsonNode result = channel.send("tools/call", asTask, timeout, epoch);
    JsonNode task = result.get("task");
    if (task == null || !task.isObject()) {
      throw new InvalidServerResponseException("the server answered a task-augmented call "
          + "without a task");
    }
    return started(task, epoch);
  }

  private Task started(JsonNode wire, long epoch) {
    String id = wire.path("taskId").isString() ? wire.get("taskId").stringValue() : null;
    if (id == null || id.isEmpty()) {
      throw new InvalidServerResponseException("the server's task has no taskId");
    }
    long lifetime = lifetimes.start(id);
    Task fresh = new Task(id, Task.Status.WORKING, null, text(wire, "createdAt"),
        text(wire, "lastUpdatedAt"), null, null, this, lifetime, epoch, null);
    return state(fresh, wire);
  }

  /** Reads a task's wire fields (either era's names) into a new state of the handle. */
  private Task state(Task handle, JsonNode wire) {
    JsonNode status = wire.get("status");
    if (status == null || !status.isString()) {
      throw new InvalidServerResponseException("the server's task has no status");
    }
    Task.Status s = Task.Status.fromWire(status.stringValue());
    Long ttl = number(wire, channel.era() == Era.MODERN ? "ttlMs" : "ttl");
    Long poll = number(wire, channel.era() == Era.MODERN ? "pollIntervalMs" : "pollInterval");
    Task next = handle.withState(s, text(wire, "statusMessage"), text(wire, "lastUpdatedAt"),
        ttl, poll);
    if (s.terminal()) {
      lifetimes.ended(handle.taskId(), handle.lifetime);
    }
    return next;
  }

  /** Refuses a handle of another client, or of an older task with the same id (inv54, 57). */
  private void check(Task task) {
    if (task.owner != this) {
      throw new IllegalArgumentException("task " + Text.safe(String.valueOf(task.taskId()))
          + " belongs to another client; a task is only ever sent to the server that made it");
    }
    if (task.taskId() != null && !lifetimes.isCurrent(task.taskId(), task.lifetime)) {
      throw new TaskReplacedException(task.taskId());
    }
  }

  /** The handle's lifetime is checked again at the wire, where the request leaves. */
  private JsonNode send(Task task, String method, ObjectNode params, Duration timeout) {
    return channel.guarded(() -> check(task),
        () -> channel.send(method, params, timeout, task.epoch));
  }

  Task get(Task task) {
    return detailed(task, channel.defaultTimeout()).task();
  }

  private record Seen(Task task, JsonNode wire) {}

  private Seen detailed(Task task, Duration timeout) {
    check(task);
    if (task.taskId() == null) {
      return new Seen(task, McpJson.object());
    }
    JsonNode wire = send(task, "tasks/get", McpJson.object().put("taskId", task.taskId()),
        timeout);
    JsonNode id = wire.get("taskId");
    if (id != null && id.isString() && !id.stringValue().equals(task.taskId())) {
      throw new InvalidServerResponseException("tasks/get answered for another task");
    }
    return new Seen(state(task, wire), wire);
  }

  Task cancel(Task task) {
    check(task);
    if (task.taskId() == null) {
      return task;
    }
    try {
      JsonNode wire = send(task, "tasks/cancel", McpJson.object().put("taskId",
          task.taskId()), channel.defaultTimeout());
      if (channel.era() == Era.LEGACY && wire.has("status")) {
        return state(task, wire);
      }
    } catch (McpException e) {
      // Legacy: cancelling a task that already ended is -32602; its state says how it ended.
      LOG.debug("tasks/cancel refused: {}", Text.safe(e.getMessage()));
    }
    return get(task);
  }

  /** A transparent call: create the task, wait for it, cancel it if the caller gives up. */
  CallToolResult runToCompletion(ObjectNode params, Duration timeout, ProgressListener progress) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Task task = create(params, timeout);
    if (progress != null && task.taskId() != null) {
      LOG.debug("task {}: progress is not reported for tasks", Text.safe(task.taskId()));
    }
    Duration left = Duration.ofNanos(Math.max(1_000_000L, deadline - System.nanoTime()));
    return await(task, left, true);
  }

  CallToolResult await(Task task, Duration timeout, boolean cancelOnGiveUp) {
    check(task);
    if (task.taskId() == null) {
      return task.immediate;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean endedAtServer = false;
    try {
      while (true) {
        Duration left = remaining(deadline, timeout, task);
        Seen seen = detailed(task, left);
        Task now = seen.task();
        switch (now.status()) {
          case COMPLETED, FAILED -> {
            return outcome(now, seen.wire(), remaining(deadline, timeout, task));
          }
          case CANCELLED -> {
            forget(now);
            endedAtServer = true;
            throw new RequestCancelledException("the task was cancelled");
          }
          case INPUT_REQUIRED -> {
            if (channel.era() == Era.LEGACY) {
              // The server asks on the stream of tasks/result, which waits for the end.
              return outcome(now, seen.wire(), remaining(deadline, timeout, task));
            }
            // An update waits no longer than a request does: past that its outcome is
            // unknown, and the answers go again with the next poll.
            answer(now, seen.wire().get("inputRequests"),
                left.compareTo(channel.defaultTimeout()) < 0 ? left : channel.defaultTimeout());
            pause(Math.min(POLL_FLOOR_MS, millisLeft(deadline)));
          }
          default -> pause(Math.min(pollMillis(now), millisLeft(deadline)));
        }
        if (millisLeft(deadline) <= 0) {
          throw new RequestTimeoutException("tools/call (task " + task.taskId() + ")", timeout);
        }
      }
    } catch (RequestTimeoutException | RequestCancelledException e) {
      if (cancelOnGiveUp && !endedAtServer) {
        cancelQuietly(task);
      }
      throw e;
    }
  }

  private CallToolResult outcome(Task task, JsonNode wire, Duration timeout) {
    try {
      if (channel.era() == Era.MODERN) {
        if (task.status() == Task.Status.FAILED) {
          JsonNode error = wire.get("error");
          if (error == null || !error.isObject()) {
            throw new InvalidServerResponseException("a failed task carries no error");
          }
          throw new McpException(error.path("code").asInt(-32603),
              error.path("message").asString("task failed"), error.get("data"));
        }
        JsonNode result = wire.get("result");
        if (result == null || !result.isObject()) {
          throw new InvalidServerResponseException("a completed task carries no result");
        }
        return Results.parse(result, CallToolResult.class, "tasks/get");
      }
      JsonNode result = channel.send("tasks/result",
          McpJson.object().put("taskId", task.taskId()), timeout, task.epoch);
      return Results.parse(result, CallToolResult.class, "tasks/result");
    } finally {
      forget(task);
    }
  }

  /** Answers each input request once and delivers the answers with {@code tasks/update}. */
  private void answer(Task task, JsonNode requests, Duration timeout) {
    TaskAnswers owed = answers.computeIfAbsent(key(task), k -> new TaskAnswers());
    if (requests instanceof ObjectNode asked) {
      for (Map.Entry<String, JsonNode> entry : asked.properties()) {
        if (!owed.needsAnswer(entry.getKey())) {
          continue;
        }
        JsonNode method = entry.getValue().get("method");
        if (method == null || !method.isString()) {
          throw new InvalidServerResponseException("input request "
              + Text.safe(entry.getKey()) + " names no method");
        }
        JsonNode params = entry.getValue().get("params");
        owed.answer(entry.getKey(), channel.answer(method.stringValue(),
            params instanceof ObjectNode p ? p : null));
      }
    }
    update(task, owed, timeout);
  }

  /**
   * Sends the pending answers. A confirmed update clears its own keys; an ambiguous one leaves
   * them pending for the next poll; a refusal gives them back and reaches the caller. Never
   * re-sent by any retry layer: only the next poll sends pending answers again.
   */
  void update(Task task, TaskAnswers owed, Duration timeout) {
    owed.updateLock().lock();
    try {
      TaskAnswers.Batch batch = owed.take();
      if (batch.isEmpty()) {
        return;
      }
      ObjectNode params = McpJson.object().put("taskId", task.taskId());
      params.set("inputResponses", batch.answers());
      try {
        send(task, "tasks/update", params, timeout);
        owed.confirmed(batch);
      } catch (McpException e) {
        owed.rejected(batch);
        throw e;
      } catch (RequestTimeoutException | TransportException | ConnectionClosedException e) {
        owed.ambiguous(batch);
        if (e instanceof SessionChangedException) {
          throw e;
        }
        LOG.debug("tasks/update of {} had no clear outcome; its answers stay pending",
            Text.safe(task.taskId()));
      } catch (RuntimeException e) {
        owed.ambiguous(batch);
        throw e;
      }
    } finally {
      owed.updateLock().unlock();
    }
  }

  /** The answers still owed to a task, for tests. */
  TaskAnswers answersOf(Task task) {
    return answers.computeIfAbsent(key(task), k -> new TaskAnswers());
  }

  private void forget(Task task) {
    answers.remove(key(task));
    lifetimes.ended(task.taskId(), task.lifetime);
  }

  private void cancelQuietly(Task task) {
    boolean interrupted = Thread.interrupted();
    try {
      cancel(task);
    } catch (RuntimeException e) {
      LOG.debug("could not cancel task {}: {}", Text.safe(task.taskId()),
          Text.safe(e.getMessage()));
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static String key(Task task) {
    return task.taskId() + "#" + task.lifetime;
  }

  private static long pollMillis(Task task) {
    Long suggested = task.pollIntervalMillis();
    long wait = suggested == null ? 500 : suggested;
    return Math.max(POLL_FLOOR_MS, Math.min(POLL_CAP_MS, wait));
  }

  private static long millisLeft(long deadline) {
    return (deadline - System.nanoTime()) / 1_000_000L;
  }

  private static Duration remaining(long deadline, Duration timeout, Task task) {
    long left = millisLeft(deadline);
    if (left <= 0) {
      throw new RequestTimeoutException("tools/call (task " + task.taskId() + ")", timeout);
    }
    return Duration.ofMillis(left);
  }

  private static void pause(long millis) {
    if (millis <= 0) {
      return;
    }
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestCancelledException("interrupted");
    }
  }

  private static String text(JsonNode wire, String field) {
    JsonNode v = wire.get(field);
    return v != null && v.isString() ? v.stringValue() : null;
  }

  private static Long number(JsonNode wire, String field) {
    JsonNode v = wire.get(field);
    return v != null && v.isNumber() ? v.asLong() : null;
  }
}
