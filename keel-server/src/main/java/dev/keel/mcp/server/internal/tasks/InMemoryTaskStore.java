package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;

/**
 * The default {@link TaskStore}: one map in creation order, bounded in total and per owner. Room
 * is made by dropping the oldest task that already ended; running tasks are never dropped, so a
 * store full of running tasks refuses new ones.
 */
public final class InMemoryTaskStore implements TaskStore {

  private final int maxTasks;
  private final int maxPerOwner;
  private final ReentrantLock lock = new ReentrantLock();
  private final LinkedHashMap<String, StoredTask> tasks = new LinkedHashMap<>();
  private final Map<String, Integer> perOwner = new HashMap<>();

  /** Creates a store of at most {@code maxTasks} tasks, {@code maxPerOwner} per owner. */
  public InMemoryTaskStore(int maxTasks, int maxPerOwner) {
    if (maxTasks <= 0 || maxPerOwner <= 0) {
      throw new IllegalArgumentException("task store limits must be positive");
    }
    this.maxTasks = maxTasks;
    this.maxPerOwner = maxPerOwner;
  }

  @Override
  public boolean create(StoredTask task) {
    lock.lock();
    try {
      if (tasks.containsKey(task.taskId())) {
        return false;
      }
      if (perOwner.getOrDefault(task.owner(), 0) >= maxPerOwner
          && !dropOldestEnded(task.owner())) {
        return false;
      }
      if (tasks.size() >= maxTasks && !dropOldestEnded(null)) {
        return false;
      }
      tasks.put(task.taskId(), task);
      perOwner.merge(task.owner(), 1, Integer::sum);
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** Drops the oldest ended task (of {@code owner}, or of anyone); false when there is none. */
  private boolean dropOldestEnded(String owner) {
    for (Iterator<StoredTask> it = tasks.values().iterator(); it.hasNext(); ) {
      StoredTask t = it.next();
      if (t.status().terminal() && (owner == null || owner.equals(t.owner()))) {
        it.remove();
        forget(t.owner());
        return true;
      }
    }
    return false;
  }

  private void forget(String owner) {
    perOwner.computeIfPresent(owner, (k, n) -> n <= 1 ? null : n - 1);
  }

  @Override
  public Optional<StoredTask> get(String taskId) {
    lock.lock();
    try {
      return Optional.ofNullable(tasks.get(taskId));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public Optional<StoredTask> update(String taskId, UnaryOperator<StoredTask> change) {
    lock.lock();
    try {
      StoredTask current = tasks.get(taskId);
      if (current == null) {
        return Optional.empty();
      }
      StoredTask next = change.apply(current);
      if (!next.taskId().equals(taskId) || !next.owner().equals(current.owner())) {
        throw new IllegalArgumentException("a task's id and owner never change");
      }
      tasks.put(taskId, next);
      return Optional.of(next);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<StoredTask> byOwner(String owner) {
    lock.lock();
    try {
      List<StoredTask> mine = new ArrayList<>();
      for (StoredTask t : tasks.values()) {
        if (t.owner().equals(owner)) {
          mine.add(t);
        }
      }
      return mine;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void remove(String taskId) {
    lock.lock();
    try {
      StoredTask removed = tasks.remove(taskId);
      if (removed != null) {
        forget(removed.owner());
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public List<String> removeExpired(Instant now) {
    lock.lock();
    try {
      List<String> removed = new ArrayList<>();
      for (Iterator<StoredTask> it = tasks.values().iterator(); it.hasNext(); ) {
        StoredTask t = it.next();
        if (!t.expiresAt().isAfter(now)) {
          it.remove();
          forget(t.owner());
          removed.add(t.taskId());
        }
      }
      return removed;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns how many owners the per-owner limit counts tasks for: only those holding a task,
   * or the count would keep an entry for every owner the store has ever seen.
   */
  int countedOwners() {
    lock.lock();
    try {
      return perOwner.size();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int size() {
    lock.lock();
    try {
      return tasks.size();
    } finally {
      lock.unlock();
    }
  }
}
