package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.CallToolResult;

/**
 * The part of a tool call that runs as a task, handed to
 * {@link RequestContext#continueAsTask(TaskWork)}.
 */
@FunctionalInterface
public interface TaskWork {

  /**
   * Does the work and returns the tool's result.
   *
   * @param ctx the context to use from here on: the task's own when the call became a task
   *     (cancelled by {@code tasks/cancel}, asking the client through the task)
   */
  CallToolResult run(RequestContext ctx) throws Exception;
}
