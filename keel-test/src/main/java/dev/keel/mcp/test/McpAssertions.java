package dev.keel.mcp.test;

import dev.keel.mcp.core.McpException;
import java.util.Objects;
import org.opentest4j.AssertionFailedError;

/**
 * The entry points of Keel's fluent assertions for MCP servers under test: tool calls, errors,
 * progress and notifications. Every failure is an {@code AssertionFailedError} (opentest4j, as
 * JUnit's own) whose message names what was expected and what came.
 *
 * <pre>{@code
 * import static dev.keel.mcp.test.McpAssertions.assertThat;
 *
 * assertThat(client.call("echo", "{\"text\":\"hi\"}")).succeeded().hasText("hi");
 * assertThat(client.call("echo", "{}")).failedWith(ErrorCodes.INVALID_PARAMS);
 * assertThat(client.notifications()).contains("notifications/message");
 * }</pre>
 */
public final class McpAssertions {

  private McpAssertions() {}

  /** Returns assertions on a tool call. */
  public static ToolCallAssert assertThat(ToolCall call) {
    return new ToolCallAssert(Objects.requireNonNull(call, "call"));
  }

  /** Returns assertions on the notifications a test client recorded. */
  public static NotificationsAssert assertThat(RecordedNotifications notifications) {
    return new NotificationsAssert(Objects.requireNonNull(notifications, "notifications"));
  }

  /** Returns assertions on a JSON-RPC error. */
  public static ErrorAssert assertThat(McpException error) {
    return new ErrorAssert(Objects.requireNonNull(error, "error"), "the request");
  }

  /**
   * Runs {@code request}, which must fail with a JSON-RPC error, and returns assertions on it:
   * for requests other than tool calls ({@code client.mcp().readResource(...)}).
   *
   * @throws AssertionError when it returns normally or fails with anything else
   */
  public static ErrorAssert assertThatError(Runnable request) {
    try {
      request.run();
    } catch (McpException e) {
      return new ErrorAssert(e, "the request");
    } catch (RuntimeException e) {
      throw new AssertionFailedError("expected the request to fail with a JSON-RPC error but it "
          + "failed with " + e.getClass().getSimpleName() + ": " + e.getMessage(), e);
    }
    throw new AssertionFailedError("expected the request to fail with a JSON-RPC error but it "
        + "succeeded");
  }
}
