package dev.keel.mcp.client.internal;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which lifetime of each task id a client's handles may act on.
 *
 * <p>A server may reuse a task id once the first task is gone. Every task the client learns of
 * gets a lifetime number from a counter that never goes back (not even when entries are pruned),
 * and only the newest lifetime of an id is current: an older handle would reach a task its
 * holder never created, so it is refused. At most {@code maxTracked} ids are remembered; ended
 * tasks are forgotten first, and a forgotten handle is refused too, never guessed at.
 */
public final class TaskLifetimes {

  /** The default number of task ids remembered. */
  public static final int DEFAULT_MAX_TRACKED = 4096;

  private record Entry(long lifetime, boolean ended) {}

  private final int maxTracked;
  private final LinkedHashMap<String, Entry> current = new LinkedHashMap<>();
  private long next = 1;

  /** Remembers at most {@code maxTracked} task ids. */
  public TaskLifetimes(int maxTracked) {
    if (maxTracked < 1) {
      throw new IllegalArgumentException("maxTracked must be positive: " + maxTracked);
    }
    this.maxTracked = maxTracked;
  }

  /** Starts a new lifetime for {@code taskId}, ending any older one; returns its number. */
  public synchronized long start(String taskId) {
    long lifetime = next++;
    current.remove(taskId);
    current.put(taskId, new Entry(lifetime, false));
    prune();
    return lifetime;
  }

  /** Returns true when {@code lifetime} is the newest lifetime of {@code taskId}. */
  public synchronized boolean isCurrent(String taskId, long lifetime) {
    Entry e = current.get(taskId);
    return e != null && e.lifetime() == lifetime;
  }

  /** Records that the task ended, so it may be forgotten first. */
  public synchronized void ended(String taskId, long lifetime) {
    Entry e = current.get(taskId);
    if (e != null && e.lifetime() == lifetime) {
      current.put(taskId, new Entry(lifetime, true));
    }
  }

  /** Returns how many task ids are remembered. */
  public synchronized int size() {
    return current.size();
  }

  private void prune() {
    for (Iterator<Map.Entry<String, Entry>> it = current.entrySet().iterator();
        it.hasNext() && current.size() > maxTracked; ) {
      if (it.next().getValue().ended()) {
        it.remove();
      }
    }
    for (Iterator<Map.Entry<String, Entry>> it = current.entrySet().iterator();
        it.hasNext() && current.size() > maxTracked; ) {
      it.next();
      it.remove();
    }
  }
}
