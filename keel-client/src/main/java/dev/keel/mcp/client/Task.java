package dev.keel.mcp.client;

import dev.keel.mcp.core.schema.CallToolResult;
import java.util.Locale;
import java.util.Objects;

/**
 * A task the server runs for a tool call, as last seen: a handle for
 * {@link McpClient#getTask}, {@link McpClient#cancelTask} and {@link McpClient#awaitTask}.
 *
 * <p>A handle belongs to the client that created it and to one lifetime of its task id: a handle
 * is refused by any other client, and by its own once a newer task reused the id
 * ({@link TaskReplacedException}). In the legacy era it also belongs to its session: once that
 * session ended, the handle's requests are refused with {@link SessionChangedException}.
 */
public final class Task {

  /** Where a task is in its life. */
  public enum Status {
    /** The server is working on it. */
    WORKING,
    /** The server waits for the client's answers. */
    INPUT_REQUIRED,
    /** It ended with a result. */
    COMPLETED,
    /** It ended with an error. */
    FAILED,
    /** It was cancelled. */
    CANCELLED;

    /** Returns true when the status never changes again. */
    public boolean terminal() {
      return this == COMPLETED || this == FAILED || this == CANCELLED;
    }

    static Status fromWire(String name) {
      for (Status s : values()) {
        if (s.name().toLowerCase(Locale.ROOT).equals(name)) {
          return s;
        }
      }
      throw new InvalidServerResponseException("unknown task status");
    }
  }

  private final String taskId;
  private final Status status;
  private final String statusMessage;
  private final String createdAt;
  private final String lastUpdatedAt;
  private final Long ttlMillis;
  private final Long pollIntervalMillis;
  final Object owner;
  final long lifetime;
  final long epoch;
  final CallToolResult immediate;

  Task(String taskId, Status status, String statusMessage, String createdAt,
      String lastUpdatedAt, Long ttlMillis, Long pollIntervalMillis, Object owner, long lifetime,
      long epoch, CallToolResult immediate) {
    this.taskId = taskId;
    this.status = Objects.requireNonNull(status, "status");
    this.statusMessage = statusMessage;
    this.createdAt = createdAt;
    this.lastUpdatedAt = lastUpdatedAt;
    this.ttlMillis = ttlMillis;
    this.pollIntervalMillis = pollIntervalMillis;
    this.owner = owner;
    this.lifetime = lifetime;
    this.epoch = epoch;
    this.immediate = immediate;
  }

  /**
   * Returns the task's id, or null when the server answered the call at once instead of making
   * a task (the stateless era lets it decide): such a handle is already completed.
   */
  public String taskId() {
    return taskId;
  }

  /** Returns the status. */
  public Status status() {
    return status;
  }

  /** Returns the server's description of the status, or null. */
  public String statusMessage() {
    return statusMessage;
  }

  /** Returns when the task was created (ISO 8601), or null. */
  public String createdAt() {
    return createdAt;
  }

  /** Returns when the task last changed (ISO 8601), or null. */
  public String lastUpdatedAt() {
    return lastUpdatedAt;
  }

  /** Returns how long the server keeps the task, in milliseconds, or null for unlimited. */
  public Long ttlMillis() {
    return ttlMillis;
  }

  /** Returns the polling interval the server suggests, in milliseconds, or null. */
  public Long pollIntervalMillis() {
    return pollIntervalMillis;
  }

  Task withState(Status newStatus, String message, String updatedAt, Long ttl, Long poll) {
    return new Task(taskId, newStatus, message, createdAt, updatedAt != null ? updatedAt
        : lastUpdatedAt, ttl != null ? ttl : ttlMillis, poll != null ? poll : pollIntervalMillis,
        owner, lifetime, epoch, immediate);
  }

  @Override
  public String toString() {
    return "Task[" + taskId + ", " + status.name().toLowerCase(Locale.ROOT) + "]";
  }
}
