package dev.keel.mcp.client;

/**
 * A task handle was refused because a newer task took its id (or the client stopped tracking
 * it): acting on it could reach a task the caller never created. Nothing was sent.
 */
public final class TaskReplacedException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public TaskReplacedException(String taskId) {
    super("task " + dev.keel.mcp.core.Text.safe(taskId)
        + " now names a newer task; this handle is stale");
  }
}
