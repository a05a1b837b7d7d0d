package dev.keel.mcp.test;

import dev.keel.mcp.core.schema.LoggingLevel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Every notification the server sent a {@link McpTestClient} that no call consumed: log
 * messages, list changes, resource updates, task status, and anything of the server's own, in
 * the order they arrived. Progress is not here: it belongs to its call ({@link ToolCall#progress}).
 *
 * <p>Thread-safe: the client's reader records while the test reads. {@link #await} waits for a
 * notification that comes after the call that caused it, as on the legacy listening stream.
 *
 * <pre>{@code
 * server.addTool(extra, handler);
 * client.notifications().await("notifications/tools/list_changed", Duration.ofSeconds(5));
 * }</pre>
 */
public final class RecordedNotifications {

  /**
   * One notification.
   *
   * @param method its method, such as {@code notifications/message}
   * @param params its params, or null
   */
  public record Notification(String method, ObjectNode params) {}

  /**
   * One {@code notifications/message}.
   *
   * @param level its level
   * @param logger its logger, or null
   * @param data its data: a string for a plain message
   */
  public record Log(LoggingLevel level, String logger, JsonNode data) {

    /** Returns the data as text: the string itself, or the JSON of anything else. */
    public String text() {
      return data == null ? null : data.isString() ? data.stringValue() : data.toString();
    }
  }

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition arrived = lock.newCondition();
  private final List<Notification> all = new ArrayList<>();

  RecordedNotifications() {}

  void record(String method, ObjectNode params) {
    lock.lock();
    try {
      all.add(new Notification(method, params == null ? null : params.deepCopy()));
      arrived.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Returns every notification so far, oldest first. */
  public List<Notification> all() {
    lock.lock();
    try {
      return List.copyOf(all);
    } finally {
      lock.unlock();
    }
  }

  /** Returns the notifications with this method so far, oldest first. */
  public List<Notification> of(String method) {
    return all().stream().filter(n -> n.method().equals(method)).toList();
  }

  /** Returns the log messages ({@code notifications/message}) so far, oldest first. */
  public List<Log> logs() {
    List<Log> logs = new ArrayList<>();
    for (Notification n : of("notifications/message")) {
      ObjectNode p = n.params();
      if (p == null) {
        continue;
      }
      LoggingLevel level;
      try {
        level = LoggingLevel.fromWire(p.path("level").asString(""));
      } catch (RuntimeException e) {
        continue; // a level the client does not know is not a log message it can show
      }
      JsonNode logger = p.get("logger");
      logs.add(new Log(level, logger != null && logger.isString() ? logger.stringValue() : null,
          p.get("data")));
    }
    return logs;
  }

  /**
   * Waits until at least {@code count} notifications with this method arrived and returns them.
   *
   * @throws AssertionError when they do not arrive in time, naming what did
   */
  public List<Notification> await(String method, int count, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    lock.lock();
    try {
      while (true) {
        List<Notification> matching = all.stream().filter(n -> n.method().equals(method))
            .toList();
        if (matching.size() >= count) {
          return matching;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new org.opentest4j.AssertionFailedError("expected " + count + " " + method
              + " notification(s) within " + timeout.toMillis() + " ms but got "
              + matching.size() + "; received: " + methods(all), count, matching.size());
        }
        arrived.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + method, e);
    } finally {
      lock.unlock();
    }
  }

  /** Waits for one notification with this method; see {@link #await(String, int, Duration)}. */
  public Notification await(String method, Duration timeout) {
    List<Notification> got = await(method, 1, timeout);
    return got.get(got.size() - 1);
  }

  /** Forgets everything recorded so far. */
  public void clear() {
    lock.lock();
    try {
      all.clear();
    } finally {
      lock.unlock();
    }
  }

  static String methods(List<Notification> notifications) {
    if (notifications.isEmpty()) {
      return "none";
    }
    List<String> names = new ArrayList<>();
    for (Notification n : notifications) {
      names.add(n.method());
    }
    return String.join(", ", names);
  }
}
