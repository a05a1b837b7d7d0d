package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.McpErrors;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.internal.tasks.TaskJson;
import dev.keel.mcp.server.internal.tasks.TaskRun;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.transport.MessageStream;
import java.util.function.Supplier;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tasks as one era defines them, chosen with the request's {@link WireCodec}: the legacy
 * experimental tasks of 2025-11-25 and the stateless {@code io.modelcontextprotocol/tasks}
 * extension differ in how a call asks to become a task, what a task looks like, where its
 * messages go and what cancelling an ended task answers. {@link TaskMethods} holds what they
 * share and asks the dialect for the rest.
 */
enum TaskDialect {

  /** 2025-11-25: a {@code task} param asks for a task; the task belongs to its session. */
  LEGACY {
    @Override
    boolean wanted(RealRequestContext ctx, ObjectNode params, TaskSupport support, String tool) {
      JsonNode task = params.get("task");
      boolean wanted = task != null && task.isObject();
      if (wanted && support == TaskSupport.FORBIDDEN) {
        throw new McpException(ErrorCodes.METHOD_NOT_FOUND,
            "Tool " + tool + " does not run as a task");
      }
      if (!wanted && support == TaskSupport.REQUIRED) {
        throw new McpException(ErrorCodes.METHOD_NOT_FOUND,
            "Tool " + tool + " runs only as a task: call it with a task param");
      }
      return wanted;
    }

    @Override
    Long ttl(ObjectNode params) {
      return Params.optionalLong(params.get("task"), "ttl", "task.ttl");
    }

    @Override
    RequestView taskView(RequestView view) {
      return view.withoutRound();
    }

    @Override
    MessageStream stream(TaskRun run) {
      return run.outbox(); // progress, logs and questions reach whoever waits in tasks/result
    }

    @Override
    Asking asking() {
      return Asking.BY_REQUEST;
    }

    @Override
    JsonNode created(StoredTask seed) {
      ObjectNode result = McpJson.object();
      result.set("task", TaskJson.legacy(seed));
      return result;
    }

    @Override
    JsonNode status(StoredTask task) {
      return TaskJson.legacy(task);
    }

    @Override
    JsonNode cancelEnded(StoredTask task) {
      throw McpException.invalidParams("Task already ended (" + task.status().wireName()
          + "): it cannot be cancelled");
    }

    @Override
    JsonNode cancelled(Supplier<StoredTask> after) {
      return TaskJson.legacy(after.get()); // the task, already cancelled
    }

    @Override
    void admit(RealRequestContext ctx) {}

    @Override
    boolean stateless() {
      return false;
    }
  },

  /** 2026-07-28's extension: declared by the request; the server decides (SEP-2663). */
  STATELESS {
    @Override
    boolean wanted(RealRequestContext ctx, ObjectNode params, TaskSupport support, String tool) {
      // a legacy task param is tolerated and ignored
      boolean wanted = ctx.clientCapabilities().hasExtension(TaskMethods.EXTENSION);
      if (!wanted && support == TaskSupport.REQUIRED) {
        throw McpErrors.missingExtension(TaskMethods.EXTENSION);
      }
      return wanted;
    }

    @Override
    Long ttl(ObjectNode params) {
      return null;
    }

    @Override
    RequestView taskView(RequestView view) {
      return view.withoutRound().withoutLogs();
    }

    @Override
    MessageStream stream(TaskRun run) {
      return NOWHERE;
    }

    @Override
    Asking asking() {
      return Asking.BY_TASK;
    }

    @Override
    JsonNode created(StoredTask seed) {
      ObjectNode result = TaskJson.modern(seed);
      result.put("resultType", "task");
      return result;
    }

    @Override
    JsonNode status(StoredTask task) {
      return TaskJson.detailed(task);
    }

    @Override
    JsonNode cancelEnded(StoredTask task) {
      return McpJson.object(); // the extension acknowledges an ended task too
    }

    @Override
    JsonNode cancelled(Supplier<StoredTask> after) {
      return McpJson.object();
    }

    @Override
    void admit(RealRequestContext ctx) {
      if (!ctx.clientCapabilities().hasExtension(TaskMethods.EXTENSION)) {
        throw McpErrors.missingExtension(TaskMethods.EXTENSION);
      }
    }

    @Override
    boolean stateless() {
      return true;
    }
  };

  /** Where a stateless task's messages go: nowhere (no progress or logs on tasks). */
  private static final MessageStream NOWHERE = message -> false;

  /**
   * Returns true when the call asks to run as a task.
   *
   * @throws McpException when the tool's task support and the request disagree
   */
  abstract boolean wanted(RealRequestContext ctx, ObjectNode params, TaskSupport support,
      String tool);

  /** Returns the time to live the request asks for, or null. */
  abstract Long ttl(ObjectNode params);

  /** Returns the view the task's own context runs with. */
  abstract RequestView taskView(RequestView view);

  /** Returns where the task's handler sends progress, logs and questions. */
  abstract MessageStream stream(TaskRun run);

  /** Returns how the task's handler asks the client. */
  abstract Asking asking();

  /** Returns the answer to the call that created the task. */
  abstract JsonNode created(StoredTask seed);

  /** Returns the answer of {@code tasks/get}. */
  abstract JsonNode status(StoredTask task);

  /** Returns the answer of {@code tasks/cancel} for a task that already ended, or throws. */
  abstract JsonNode cancelEnded(StoredTask task);

  /** Returns the answer of {@code tasks/cancel} once the task was cancelled. */
  abstract JsonNode cancelled(Supplier<StoredTask> after);

  /**
   * Refuses a {@code tasks/*} request that may not use tasks.
   *
   * @throws McpException -32021 when the stateless request does not declare the extension
   */
  abstract void admit(RealRequestContext ctx);

  /** Returns true for the stateless era's tasks: what a stored task records of its era. */
  abstract boolean stateless();

  /** Returns true when a stored task is one of this dialect's (the eras' tasks never mix). */
  boolean owns(StoredTask task) {
    return task.modern() == stateless();
  }
}
