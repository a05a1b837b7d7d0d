package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.ToolExecution;
import java.util.Locale;

/**
 * Whether a tool runs as a task: the {@code execution.taskSupport} of the tool's listing.
 *
 * <p>Legacy clients (2025-11-25) ask for a task with a {@code task} param on {@code tools/call};
 * stateless clients (2026-07-28) declare the {@code io.modelcontextprotocol/tasks} extension and
 * the server decides. See {@link ToolOptions#withTaskSupport}.
 */
public enum TaskSupport {
  /** Never a task (the default). A legacy request for a task gets -32601. */
  FORBIDDEN,
  /** A task when the client can take one, an ordinary call otherwise. */
  OPTIONAL,
  /**
   * Always a task. A legacy call without a {@code task} param gets -32601; a stateless client
   * without the tasks extension gets -32021 naming it.
   */
  REQUIRED;

  /** Returns the name on the wire ({@code "optional"}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Returns the listing's {@code execution} member for this support. */
  public ToolExecution execution() {
    return new ToolExecution(wireName());
  }

  /**
   * Reads a listing's {@code execution}: absent or unknown values are {@link #FORBIDDEN}, as the
   * specification says.
   */
  public static TaskSupport of(ToolExecution execution) {
    if (execution == null || execution.taskSupport() == null) {
      return FORBIDDEN;
    }
    for (TaskSupport s : values()) {
      if (s.wireName().equals(execution.taskSupport())) {
        return s;
      }
    }
    return FORBIDDEN;
  }
}
