package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.server.TaskWork;

/**
 * Leaves a handler that continues as a task ({@code ctx.continueAsTask}): the dispatcher creates
 * the task, runs the work on the task's thread and answers the request with the task.
 *
 * <p>An {@link Error}, like the stateless era's input signal, so that a handler's
 * {@code catch (Exception e)} does not swallow it.
 */
public final class TaskSignal extends Error {

  private static final long serialVersionUID = 1L;

  private final transient TaskWork work;

  /** Creates the signal carrying the work to run as a task. */
  public TaskSignal(TaskWork work) {
    super("continue as task", null, false, false);
    this.work = work;
  }

  /** Returns the work to run as a task. */
  public TaskWork work() {
    return work;
  }
}
