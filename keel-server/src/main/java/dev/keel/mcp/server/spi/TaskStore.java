package dev.keel.mcp.server.spi;

import dev.keel.mcp.server.internal.tasks.InMemoryTaskStore;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * Keeps tasks: their status and, once they end, their outcome, for as long as their ttl.
 *
 * <p>The store knows nothing of principals beyond the {@link StoredTask#owner()} it keeps; the
 * server checks ownership, so a store never decides who may see a task. Implementations must be
 * thread-safe and bounded. A task a store no longer has is "not found" for everyone. The
 * running handlers stay in the server process; only their state lives here, so that a shared
 * store can answer polls from any node.
 */
public interface TaskStore {

  /**
   * Returns an in-memory store of at most {@code maxTasks} tasks, at most
   * {@code maxTasksPerOwner} of them per owner. A full store makes room by dropping the oldest
   * task that already ended (the owner's own first); when every task is still running it
   * refuses new ones.
   */
  static TaskStore inMemory(int maxTasks, int maxTasksPerOwner) {
    return new InMemoryTaskStore(maxTasks, maxTasksPerOwner);
  }

  /**
   * Stores a new task. It is visible to {@link #get} before this returns (a client may poll the
   * id the moment it learns it).
   *
   * @return false when the store is full and the task was not stored
   */
  boolean create(StoredTask task);

  /** Returns the task with this id, if the store has it. */
  Optional<StoredTask> get(String taskId);

  /**
   * Changes a task atomically.
   *
   * @return the task after the change, or empty when the store does not have it
   */
  Optional<StoredTask> update(String taskId, UnaryOperator<StoredTask> change);

  /** Returns the tasks of one owner, oldest first. */
  List<StoredTask> byOwner(String owner);

  /** Removes a task; does nothing when it is not there. */
  void remove(String taskId);

  /**
   * Removes every task whose ttl ended at {@code now}.
   *
   * @return the ids removed
   */
  List<String> removeExpired(Instant now);

  /** Returns how many tasks the store holds. */
  int size();
}
