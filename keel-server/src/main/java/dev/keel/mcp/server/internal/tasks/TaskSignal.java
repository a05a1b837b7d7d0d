package dev.keel.mcp.server.internal.tasks;

import dev.keel.mcp.server.TaskWork;
import dev.keel.mcp.server.internal.dispatch.ControlSignal;

/**
 * Leaves a handler that continues as a task ({@code ctx.continueAsTask}): the dispatcher creates
 * the task, runs the work on the task's thread and answers the request with the task (see
 * {@link ControlSignal} for why it cannot be swallowed).
 */
public final class TaskSignal extends ControlSignal {

  private static final long serialVersionUID = 1L;

  private final transient TaskWork work;

  /** Creates the signal carrying the work to run as a task. */
  public TaskSignal(TaskWork work) {
    super("continue as task");
    this.work = work;
  }

  /** Returns the work to run as a task. */
  public TaskWork work() {
    return work;
  }
}
