package dev.keel.mcp.server.spi;

import java.time.Instant;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a {@link TaskStore} keeps of one task: its owner, status, timestamps and, once terminal,
 * its outcome. Immutable: a change is a new record.
 *
 * @param taskId the id: secure random, never reused
 * @param owner the fingerprint of the principal that created it
 * @param sessionId the legacy session that created it, or null for a stateless request
 * @param modern true when a stateless (2026-07-28) request created it; the era decides the wire
 *     shapes and whether a tool error counts as {@code failed}
 * @param status the status
 * @param statusMessage a description of the status, or null
 * @param createdAt when it was created
 * @param lastUpdatedAt when its status last changed
 * @param ttlMillis how long after {@code createdAt} it is kept
 * @param pollIntervalMillis how often a client should poll
 * @param inputRequests the questions waiting for the client's answers by key, or null
 * @param result the result of the request once it completed (legacy: also a tool error), or null
 * @param error the JSON-RPC error ({@code code}, {@code message}, {@code data}) it failed with,
 *     or null
 */
public record StoredTask(String taskId, String owner, String sessionId, boolean modern,
    TaskStatus status, String statusMessage, Instant createdAt, Instant lastUpdatedAt,
    long ttlMillis, long pollIntervalMillis, ObjectNode inputRequests, ObjectNode result,
    ObjectNode error) {

  /** Checks the required fields. */
  public StoredTask {
    Objects.requireNonNull(taskId, "taskId");
    Objects.requireNonNull(owner, "owner");
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(createdAt, "createdAt");
    Objects.requireNonNull(lastUpdatedAt, "lastUpdatedAt");
  }

  /** Returns when the task may be deleted. */
  public Instant expiresAt() {
    return createdAt.plusMillis(ttlMillis);
  }

  /** Returns a copy with another status, updated at {@code now}; terminal tasks never change. */
  public StoredTask withStatus(TaskStatus next, String message, Instant now) {
    if (status.terminal()) {
      return this;
    }
    return new StoredTask(taskId, owner, sessionId, modern, next, message, createdAt, now,
        ttlMillis, pollIntervalMillis, next == TaskStatus.INPUT_REQUIRED ? inputRequests : null,
        result, error);
  }

  /** Returns a copy waiting on these questions ({@code input_required}). */
  public StoredTask withInputRequests(ObjectNode requests, Instant now) {
    if (status.terminal()) {
      return this;
    }
    return new StoredTask(taskId, owner, sessionId, modern, TaskStatus.INPUT_REQUIRED,
        statusMessage, createdAt, now, ttlMillis, pollIntervalMillis, requests, result, error);
  }

  /**
   * Returns the terminal copy with its outcome; a task that is already terminal never changes.
   */
  public StoredTask finished(TaskStatus terminal, String message, ObjectNode outcomeResult,
      ObjectNode outcomeError, Instant now) {
    if (status.terminal()) {
      return this;
    }
    return new StoredTask(taskId, owner, sessionId, modern, terminal, message, createdAt, now,
        ttlMillis, pollIntervalMillis, null, outcomeResult, outcomeError);
  }
}
