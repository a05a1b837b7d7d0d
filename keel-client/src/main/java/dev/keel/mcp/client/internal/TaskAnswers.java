package dev.keel.mcp.client.internal;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The answers a client owes one task's input requests, until the server has them.
 *
 * <p>Each key is answered once. An answer stays pending until a {@code tasks/update} carrying it
 * is confirmed; an ambiguous outcome (no answer, a broken connection) keeps it pending, to be
 * sent again with the next update (the server ignores keys it already has); a definite
 * rejection gives back the keys that update still owned, so they can be answered anew. Updates
 * of one task are sent one at a time, under {@link #updateLock()}.
 */
public final class TaskAnswers {

  /** The keys one update carried, and the answers. */
  public record Batch(long id, ObjectNode answers) {
    /** Returns true when there is nothing to send. */
    public boolean isEmpty() {
      return answers.isEmpty();
    }
  }

  private record Pending(JsonNode answer, long owner) {}

  private final Set<String> answered = new HashSet<>();
  private final Map<String, Pending> pending = new LinkedHashMap<>();
  private final ReentrantLock updateLock = new ReentrantLock();
  private long nextBatch = 1;

  /** Returns the lock that keeps one update of this task on the wire at a time. */
  public ReentrantLock updateLock() {
    return updateLock;
  }

  /** Returns true when {@code key} has not been answered yet. */
  public synchronized boolean needsAnswer(String key) {
    return !answered.contains(key);
  }

  /** Records the answer to {@code key}; it is pending until an update is confirmed. */
  public synchronized void answer(String key, JsonNode value) {
    answered.add(key);
    pending.put(key, new Pending(value, 0));
  }

  /** Takes every pending answer into a new batch, which now owns those keys. */
  public synchronized Batch take() {
    long id = nextBatch++;
    ObjectNode answers = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, Pending> e : pending.entrySet()) {
      answers.set(e.getKey(), e.getValue().answer());
      e.setValue(new Pending(e.getValue().answer(), id));
    }
    return new Batch(id, answers);
  }

  /** The server has the batch's answers: only the keys it still owns are cleared. */
  public synchronized void confirmed(Batch batch) {
    pending.entrySet().removeIf(e -> e.getValue().owner() == batch.id());
  }

  /** The outcome is unknown: the answers stay pending for the next update. */
  public synchronized void ambiguous(Batch batch) {
    pending.replaceAll((k, p) -> p.owner() == batch.id() ? new Pending(p.answer(), 0) : p);
  }

  /** The server refused the batch: the keys it still owns may be answered again. */
  public synchronized void rejected(Batch batch) {
    pending.entrySet().removeIf(e -> {
      if (e.getValue().owner() == batch.id()) {
        answered.remove(e.getKey());
        return true;
      }
      return false;
    });
  }

  /** Returns the keys whose answers the server has not confirmed. */
  public synchronized Set<String> pendingKeys() {
    return Set.copyOf(pending.keySet());
  }
}
