package dev.keel.mcp.test;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.LoggingLevel;
import java.time.Duration;
import java.util.List;
import org.opentest4j.AssertionFailedError;
import tools.jackson.databind.JsonNode;

/**
 * Assertions on what a {@link McpTestClient} recorded outside calls: notifications and log
 * messages. The {@code arrives} checks wait (list changes and resource updates travel on the
 * legacy listening stream, and may come just after the call that caused them).
 *
 * <pre>{@code
 * server.addTool(tool, handler);
 * assertThat(client.notifications())
 *     .arrives("notifications/tools/list_changed", Duration.ofSeconds(5));
 * assertThat(client.notifications()).hasLog(LoggingLevel.INFO, "imported 3 rows");
 * }</pre>
 */
public final class NotificationsAssert {

  private final RecordedNotifications recorded;

  NotificationsAssert(RecordedNotifications recorded) {
    this.recorded = recorded;
  }

  /** Checks that a notification with this method has arrived. */
  public NotificationsAssert contains(String method) {
    if (recorded.of(method).isEmpty()) {
      throw new AssertionFailedError("expected a " + method + " notification but received: "
          + RecordedNotifications.methods(recorded.all()));
    }
    return this;
  }

  /**
   * Checks that a notification with this method has arrived whose params have {@code expected}
   * at {@code path} (a JSON Pointer or a dotted path, as in {@link ToolCallAssert#hasStructured}).
   */
  public NotificationsAssert contains(String method, String path, Object expected) {
    JsonNode wanted = expected instanceof JsonNode n ? n : McpJson.standard().toTree(expected);
    List<RecordedNotifications.Notification> matching = recorded.of(method);
    for (RecordedNotifications.Notification n : matching) {
      if (n.params() != null && ToolCallAssert.sameValue(JsonPaths.at(n.params(), path),
          wanted)) {
        return this;
      }
    }
    throw new AssertionFailedError("expected a " + method + " notification with " + path + " = "
        + wanted + " but " + (matching.isEmpty() ? "none came; received: "
            + RecordedNotifications.methods(recorded.all())
            : "the ones that came had params " + matching.stream()
                .map(RecordedNotifications.Notification::params).toList()));
  }

  /** Checks that no notification with this method has arrived. */
  public NotificationsAssert doesNotContain(String method) {
    List<RecordedNotifications.Notification> matching = recorded.of(method);
    if (!matching.isEmpty()) {
      throw new AssertionFailedError("expected no " + method + " notification but "
          + matching.size() + " came, with params " + matching.stream()
              .map(RecordedNotifications.Notification::params).toList());
    }
    return this;
  }

  /** Checks how many notifications with this method have arrived. */
  public NotificationsAssert hasCount(String method, int expected) {
    int actual = recorded.of(method).size();
    if (actual != expected) {
      throw new AssertionFailedError("expected " + expected + " " + method + " notification(s) "
          + "but " + actual + " came; received: " + RecordedNotifications.methods(recorded.all()),
          expected, actual);
    }
    return this;
  }

  /** Waits up to {@code timeout} for a notification with this method. */
  public NotificationsAssert arrives(String method, Duration timeout) {
    recorded.await(method, timeout);
    return this;
  }

  /** Waits up to {@code timeout} for {@code count} notifications with this method. */
  public NotificationsAssert arrives(String method, int count, Duration timeout) {
    recorded.await(method, count, timeout);
    return this;
  }

  /** Checks that a log message of this level whose text contains {@code part} has arrived. */
  public NotificationsAssert hasLog(LoggingLevel level, String part) {
    List<RecordedNotifications.Log> logs = recorded.logs();
    for (RecordedNotifications.Log log : logs) {
      if (log.level() == level && log.text() != null && log.text().contains(part)) {
        return this;
      }
    }
    throw new AssertionFailedError("expected a log message at level " + level.wireName()
        + " containing \"" + part + "\" but the log messages were " + logs.stream()
            .map(l -> l.level().wireName() + ": " + l.text()).toList());
  }
}
