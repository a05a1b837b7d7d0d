package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The live side of one task in this process: its handler's cancellation token, the questions it
 * waits on, where its messages go, and a future that completes when the task ends. Its state
 * goes through the {@link TaskEngine} into the store, which is the truth for status and outcome.
 */
public final class TaskRun {

  private final TaskEngine engine;
  private final String taskId;
  private final String owner;
  private final String sessionId;
  private final boolean modern;
  private final CancellationSource source;
  private final TaskOutbox outbox;
  private final CompletableFuture<Void> ended = new CompletableFuture<>();

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition answered = lock.newCondition();
  /** Questions waiting for an answer, by wire key. */
  private final Map<String, ObjectNode> waiting = new LinkedHashMap<>();
  /** Answers to the current questions, by wire key. */
  private final Map<String, JsonNode> answers = new LinkedHashMap<>();
  /** How often a handler key was used, so wire keys stay unique for the task's life. */
  private final Map<String, Integer> keyUses = new LinkedHashMap<>();
  private int legacyAsks;

  TaskRun(TaskEngine engine, String taskId, String owner, String sessionId, boolean modern,
      boolean interruptOnCancel) {
    this.engine = engine;
    this.taskId = taskId;
    this.owner = owner;
    this.sessionId = sessionId;
    this.modern = modern;
    this.source = new CancellationSource(interruptOnCancel);
    this.outbox = new TaskOutbox(taskId);
  }

  /** Returns the task id. */
  public String taskId() {
    return taskId;
  }

  /** Returns the owner's fingerprint. */
  public String owner() {
    return owner;
  }

  /** Returns the legacy session that created it, or null. */
  public String sessionId() {
    return sessionId;
  }

  /** Returns true for a task a stateless request created. */
  public boolean modern() {
    return modern;
  }

  /** Returns the handler's cancellation token (tripping it interrupts the handler). */
  public CancellationSource cancellation() {
    return source;
  }

  /** Returns where the handler's messages to the client go (legacy era). */
  public TaskOutbox outbox() {
    return outbox;
  }

  /** Returns a future that completes when the task ended or was removed. */
  public CompletableFuture<Void> ended() {
    return ended;
  }

  /**
   * Records the tool's result: {@code completed}, except that a tool error is {@code failed} in
   * the legacy era (2025-11-25; the 2026 extension keeps {@code failed} for JSON-RPC errors).
   */
  public void complete(ObjectNode result, boolean toolError) {
    TaskStatus status = toolError && !modern ? TaskStatus.FAILED : TaskStatus.COMPLETED;
    engine.update(this, t -> t.finished(status, toolError ? "The tool reported an error" : null,
        result, null, engine.now()));
  }

  /** Records the JSON-RPC error the request ended with: {@code failed}. */
  public void fail(JsonRpcError error) {
    ObjectNode node = McpJson.object();
    node.put("code", error.code());
    node.put("message", error.message());
    if (error.data() != null) {
      node.set("data", error.data());
    }
    engine.update(this, t -> t.finished(TaskStatus.FAILED, error.message(), null, node,
        engine.now()));
  }

  /**
   * Cancels the task: {@code cancelled} before this returns, then the handler's token trips
   * (and its thread is interrupted). Does nothing to a task that already ended.
   *
   * @return true when this call cancelled it
   */
  public boolean cancel(String reason) {
    boolean[] changed = new boolean[1];
    engine.update(this, t -> {
      changed[0] = !t.status().terminal();
      return t.finished(TaskStatus.CANCELLED, "The task was cancelled", null, null,
          engine.now());
    });
    source.cancel(reason);
    wake();
    return changed[0];
  }

  /** Marks the end of this run: the task ended or is gone. */
  void ended(boolean gone) {
    if (gone) {
      source.cancel("task removed");
    }
    ended.complete(null);
    wake();
  }

  private void wake() {
    lock.lock();
    try {
      answered.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Legacy era: a request to the client is outstanding; the task is {@code input_required}. */
  public void askingClient() {
    lock.lock();
    try {
      legacyAsks++;
    } finally {
      lock.unlock();
    }
    engine.update(this, t -> t.withStatus(TaskStatus.INPUT_REQUIRED, null, engine.now()));
  }

  /** Legacy era: the client answered; the task works again when nothing else is outstanding. */
  public void clientAnswered() {
    boolean idle;
    lock.lock();
    try {
      legacyAsks = Math.max(0, legacyAsks - 1);
      idle = legacyAsks == 0;
    } finally {
      lock.unlock();
    }
    if (idle) {
      engine.update(this, t -> t.status() == TaskStatus.INPUT_REQUIRED
          ? t.withStatus(TaskStatus.WORKING, null, engine.now()) : t);
    }
  }

  /**
   * Stateless era: publishes questions as the task's {@code inputRequests} and blocks until
   * {@code tasks/update} answered every one of them.
   *
   * @param questions each question ({@code {method, params}}) by the handler's key
   * @return the answers by the handler's key
   * @throws RequestCancelledException when the task is cancelled or removed meanwhile
   */
  public Map<String, JsonNode> collect(Map<String, ObjectNode> questions) {
    Map<String, String> wireToKey = new LinkedHashMap<>();
    ObjectNode published = McpJson.object();
    lock.lock();
    try {
      waiting.clear();
      answers.clear();
      for (Map.Entry<String, ObjectNode> q : questions.entrySet()) {
        // Keys are unique for the task's life (extension spec): a reused key gets a suffix.
        int uses = keyUses.merge(q.getKey(), 1, Integer::sum);
        String wire = uses == 1 ? q.getKey() : q.getKey() + "-" + uses;
        wireToKey.put(wire, q.getKey());
        waiting.put(wire, q.getValue());
        published.set(wire, q.getValue());
      }
    } finally {
      lock.unlock();
    }
    engine.update(this, t -> t.withInputRequests(published, engine.now()));
    lock.lock();
    try {
      while (!waiting.isEmpty()) {
        source.throwIfCancelled();
        if (ended.isDone()) {
          throw new RequestCancelledException("task ended");
        }
        answered.awaitUninterruptibly();
      }
      source.throwIfCancelled();
      Map<String, JsonNode> byKey = new LinkedHashMap<>();
      answers.forEach((wire, answer) -> byKey.put(wireToKey.get(wire), answer));
      answers.clear();
      return byKey;
    } finally {
      lock.unlock();
      engine.update(this, t -> t.status() == TaskStatus.INPUT_REQUIRED
          ? t.withStatus(TaskStatus.WORKING, null, engine.now()) : t);
    }
  }

  /**
   * Stateless era ({@code tasks/update}): takes the answers to questions still waiting; answers
   * to unknown or already answered keys are ignored (extension spec: SHOULD ignore).
   *
   * @throws McpException {@code -32602} when an answer to a waiting question is not an object
   */
  public void answer(ObjectNode inputResponses) {
    ObjectNode remaining;
    lock.lock();
    try {
      for (Map.Entry<String, JsonNode> e : inputResponses.properties()) {
        if (waiting.containsKey(e.getKey()) && !(e.getValue() instanceof ObjectNode)) {
          throw McpException.invalidParams("Invalid input response: " + e.getKey());
        }
      }
      boolean changed = false;
      for (Map.Entry<String, JsonNode> e : inputResponses.properties()) {
        if (waiting.remove(e.getKey()) != null) {
          answers.put(e.getKey(), e.getValue());
          changed = true;
        }
      }
      if (!changed) {
        return;
      }
      remaining = McpJson.object();
      waiting.forEach(remaining::set);
      answered.signalAll();
    } finally {
      lock.unlock();
    }
    if (remaining.isEmpty()) {
      engine.update(this, t -> t.status() == TaskStatus.INPUT_REQUIRED
          ? t.withStatus(TaskStatus.WORKING, null, engine.now()) : t);
    } else {
      // Partly answered: still input_required, showing only what is still open.
      engine.update(this, t -> t.status() == TaskStatus.INPUT_REQUIRED
          ? t.withInputRequests(remaining, engine.now()) : t);
    }
  }
}
