package dev.keel.mcp.test;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.TextContent;
import java.util.List;
import java.util.Objects;

/**
 * What one tool call came to, as {@link McpTestClient} recorded it: the result, or the JSON-RPC
 * error, or the local failure (timeout, cancellation, a refused argument, a broken transport),
 * and every progress report that arrived before it ended. Exactly one of {@code result},
 * {@code error} and {@code failure} is set. Check it with {@link McpAssertions#assertThat}.
 *
 * <pre>{@code
 * ToolCall call = client.call("echo", "{\"text\":\"hi\"}");
 * assertThat(call).succeeded().hasText("hi");
 * }</pre>
 *
 * @param tool the tool's name
 * @param era the era the call ran in
 * @param result the tool's result (which may itself be a tool error), or null
 * @param error the JSON-RPC error the server answered with, or null
 * @param failure what failed locally, or null
 * @param progress the progress reports, in the order they arrived
 * @param task the task the call ran as, or null for an ordinary call
 */
public record ToolCall(String tool, Era era, CallToolResult result, McpException error,
    RuntimeException failure, List<Progress> progress, Task task) {

  /** Checks that exactly one outcome is set and copies the progress. */
  public ToolCall {
    Objects.requireNonNull(tool, "tool");
    int outcomes = (result != null ? 1 : 0) + (error != null ? 1 : 0) + (failure != null ? 1 : 0);
    if (outcomes != 1) {
      throw new IllegalArgumentException("a tool call has exactly one outcome, not " + outcomes);
    }
    progress = List.copyOf(progress);
  }

  /**
   * One {@code notifications/progress} of a call.
   *
   * @param progress how far the work is
   * @param total the total, or null when the server does not know it
   * @param message the description, or null
   */
  public record Progress(double progress, Double total, String message) {}

  /** Returns the text blocks of the result joined with newlines, or null without a result. */
  public String text() {
    if (result == null) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (Content c : result.content()) {
      if (c instanceof TextContent t) {
        if (out.length() > 0) {
          out.append('\n');
        }
        out.append(t.text());
      }
    }
    return out.toString();
  }

  /** Returns true when the call timed out at the client (and was cancelled at the server). */
  public boolean timedOut() {
    return failure instanceof RequestTimeoutException;
  }

  /** Returns true when the call was cancelled by the client. */
  public boolean cancelled() {
    return failure instanceof RequestCancelledException;
  }

  /** Describes the outcome in a line, for assertion messages. */
  public String describe() {
    String where = "tool " + tool + (era == null ? "" : " (" + era.name().toLowerCase(
        java.util.Locale.ROOT) + ")");
    if (error != null) {
      return where + " failed with JSON-RPC error " + error.code() + " \"" + error.getMessage()
          + "\"";
    }
    if (failure != null) {
      return where + " failed locally: " + failure.getClass().getSimpleName() + ": "
          + failure.getMessage();
    }
    return where + " returned " + (result.failed() ? "a tool error " : "") + "\"" + text() + "\""
        + (result.structuredContent() != null ? " with structured content "
            + result.structuredContent() : "");
  }
}
