package dev.keel.cli;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.cli.output.TerminalText;
import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel call --task}: runs the call as a task and prints each status change on stderr
 * while polling at the server's interval. Stopping the command (Ctrl-C) or the timeout cancels
 * the task at the server.
 */
final class TaskWatch {

  private TaskWatch() {}

  static CallToolResult run(McpClient mcp, String tool, JsonNode arguments, Duration timeout,
      PrintStream err) {
    long deadline = System.nanoTime() + timeout.toNanos();
    Task task = mcp.callToolAsTask(tool, arguments, CallOptions.defaults().withTimeout(timeout));
    if (task.taskId() == null) {
      err.println("the server answered at once; no task was needed");
      return mcp.awaitTask(task, timeout);
    }
    try {
      Task.Status shown = null;
      Task now = task;
      while (true) {
        if (now.status() != shown) {
          shown = now.status();
          err.println("task " + TerminalText.firstLine(task.taskId(), 80) + ": "
              + shown.name().toLowerCase(Locale.ROOT)
              + (now.statusMessage() == null ? ""
                  : " (" + TerminalText.firstLine(now.statusMessage(), 80) + ")"));
        }
        if (now.status().terminal() || now.status() == Task.Status.INPUT_REQUIRED) {
          break;
        }
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          throw new RequestTimeoutException("tools/call (task " + task.taskId() + ")", timeout);
        }
        long poll = now.pollIntervalMillis() == null ? 500 : now.pollIntervalMillis();
        Thread.sleep(Math.min(left, Math.max(50, poll)));
        now = mcp.getTask(now);
      }
      long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000);
      return mcp.awaitTask(now, Duration.ofMillis(left));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      cancel(mcp, task, err);
      throw new RequestCancelledException("interrupted");
    } catch (RequestCancelledException | RequestTimeoutException e) {
      cancel(mcp, task, err);
      throw e;
    }
  }

  private static void cancel(McpClient mcp, Task task, PrintStream err) {
    boolean interrupted = Thread.interrupted();
    try {
      Task after = mcp.cancelTask(task);
      err.println("task " + TerminalText.firstLine(task.taskId(), 80) + ": "
          + after.status().name().toLowerCase(Locale.ROOT));
    } catch (RuntimeException e) {
      err.println("keel: could not cancel the task: " + TerminalText.firstLine(e.getMessage(),
          120));
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
