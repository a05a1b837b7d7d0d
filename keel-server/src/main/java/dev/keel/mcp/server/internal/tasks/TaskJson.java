package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import tools.jackson.databind.node.ObjectNode;

/**
 * The wire shapes of a task, era by era: the 2025-11-25 {@code Task} ({@code ttl},
 * {@code pollInterval}) and the 2026 extension's {@code Task} ({@code ttlMs},
 * {@code pollIntervalMs}) with its detailed form that inlines result, error or input requests.
 */
public final class TaskJson {

  private TaskJson() {}

  /** Returns {@code {"taskId": id}}, the value of the related-task {@code _meta} key. */
  public static ObjectNode related(String taskId) {
    ObjectNode node = McpJson.object();
    node.put("taskId", taskId);
    return node;
  }

  /** Returns the 2025-11-25 {@code Task}. */
  public static ObjectNode legacy(StoredTask t) {
    ObjectNode node = base(t);
    node.put("ttl", t.ttlMillis());
    node.put("pollInterval", t.pollIntervalMillis());
    return node;
  }

  /** Returns the 2026 {@code Task}: what {@code CreateTaskResult} carries, flat. */
  public static ObjectNode modern(StoredTask t) {
    ObjectNode node = base(t);
    node.put("ttlMs", t.ttlMillis());
    node.put("pollIntervalMs", t.pollIntervalMillis());
    return node;
  }

  /**
   * Returns the 2026 {@code DetailedTask}: the task plus its input requests, result or error,
   * whichever its status has (what {@code tasks/get} and {@code notifications/tasks} carry).
   */
  public static ObjectNode detailed(StoredTask t) {
    ObjectNode node = modern(t);
    if (t.status() == TaskStatus.INPUT_REQUIRED && t.inputRequests() != null) {
      node.set("inputRequests", t.inputRequests().deepCopy());
    } else if (t.status() == TaskStatus.COMPLETED && t.result() != null) {
      node.set("result", t.result().deepCopy());
    } else if (t.status() == TaskStatus.FAILED && t.error() != null) {
      node.set("error", t.error().deepCopy());
    }
    return node;
  }

  private static ObjectNode base(StoredTask t) {
    ObjectNode node = McpJson.object();
    node.put("taskId", t.taskId());
    node.put("status", t.status().wireName());
    if (t.statusMessage() != null) {
      node.put("statusMessage", t.statusMessage());
    }
    node.put("createdAt", iso(t.createdAt()));
    node.put("lastUpdatedAt", iso(t.lastUpdatedAt()));
    return node;
  }

  private static String iso(Instant instant) {
    return instant.truncatedTo(ChronoUnit.MILLIS).toString();
  }
}
