package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.TaskWork;
import dev.keel.mcp.server.internal.registry.ToolEntry;
import dev.keel.mcp.server.internal.tasks.TaskEngine;
import dev.keel.mcp.server.internal.tasks.TaskJson;
import dev.keel.mcp.server.internal.tasks.TaskRun;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Tasks, both eras: whether a {@code tools/call} becomes a task, starting it, and the
 * {@code tasks/*} methods. Legacy (2025-11-25): {@code tasks/get}, {@code tasks/result},
 * {@code tasks/list}, {@code tasks/cancel}. Stateless (the {@code io.modelcontextprotocol/tasks}
 * extension): {@code tasks/get}, {@code tasks/update}, {@code tasks/cancel}, each refused with
 * -32021 when the request does not declare the extension.
 *
 * <p>What differs between the eras' tasks is the {@link TaskDialect} of the request's wire.
 *
 * <p>A task is found only by its owner: the same principal and, in the legacy era, the same
 * session. Anything else is "not found" (-32602), exactly like an id that never existed.
 */
final class TaskMethods {

  private static final Logger LOG = LoggerFactory.getLogger(TaskMethods.class);

  /** The identifier of the 2026 tasks extension. */
  static final String EXTENSION = "io.modelcontextprotocol/tasks";

  /** How a {@code tools/call} runs. */
  enum Mode {
    /** An ordinary call. */
    SYNC,
    /** A task, created before the handler runs. */
    NOW,
    /** An ordinary call until the handler continues as a task. */
    ON_DEMAND
  }

  private TaskMethods() {}

  /**
   * Decides how a call runs. Stateless era: a task when the request declares the extension and
   * the tool supports tasks (the server decides, SEP-2663); a legacy {@code task} param is
   * tolerated and ignored. Legacy era: a task when the request carries {@code task} and the tool
   * supports tasks.
   *
   * @throws McpException -32021 (stateless) or -32601 (legacy) when the tool requires a task
   *     the request cannot have; -32601 for a legacy task request to a tool that forbids tasks
   */
  static Mode decide(RealRequestContext ctx, ToolEntry entry, ObjectNode params) {
    TaskSupport support = entry.options().taskSupport() == null
        ? TaskSupport.of(entry.tool().execution()) : entry.options().taskSupport();
    boolean wanted = ctx.view().wire().tasks().wanted(ctx, params, support,
        entry.tool().name());
    if (!wanted || support == TaskSupport.FORBIDDEN) {
      return Mode.SYNC;
    }
    return entry.options().taskOnDemand() ? Mode.ON_DEMAND : Mode.NOW;
  }

  /**
   * Creates the task, starts its handler (or the continued {@code work}) on a thread of its
   * own, and returns the {@code CreateTaskResult} of the request's era. The task is in the store
   * before this returns.
   */
  static JsonNode start(RealRequestContext ctx, ToolEntry entry, ObjectNode params,
      ObjectNode arguments, TaskWork work) {
    ServerCore core = ctx.core();
    TaskDialect dialect = ctx.view().wire().tasks();
    TaskEngine.Created created = core.tasks().create(ctx.principal().fingerprint(),
        ctx.sessionId(), dialect.stateless(), dialect.ttl(params),
        entry.options().interruptOnCancel());
    if (created.run() == null) {
      throw new McpException(ErrorCodes.SERVER_ERROR,
          created.refusal() == TaskEngine.Refusal.TOO_MANY_ACTIVE
              ? "Too many running tasks" : "Too many tasks");
    }
    core.counters().taskCreated();
    TaskRun run = created.run();
    core.tasks().describe(run.taskId(), entry.tool().name(), ctx.principal().id());
    RealRequestContext taskCtx = new RealRequestContext(core, dialect.taskView(ctx.view()),
        ctx.principal(), ctx.request(), dialect.stream(run), null, run.cancellation(), run,
        ctx.scope(), dialect.asking());
    core.tasks().start(run, () -> execute(taskCtx, run, entry, arguments, work));
    // The snapshot answered is the task as created: what its handler does next is for polls.
    return dialect.created(created.seed());
  }

  /** The task's thread: runs the tool and records how it ended. */
  private static void execute(RealRequestContext ctx, TaskRun run, ToolEntry entry,
      ObjectNode arguments, TaskWork work) {
    ServerCore core = ctx.core();
    CancellationSource source = run.cancellation();
    Duration timeout = entry.options().timeout();
    ScheduledFuture<?> timer = timeout == null ? null
        : core.timer().schedule(ctx::timeOut, timeout.toMillis(), TimeUnit.MILLISECONDS);
    String name = entry.tool().name();
    source.bindThread();
    try {
      CallToolResult result = work == null ? ToolMethods.run(ctx, entry, arguments)
          : ToolMethods.runWork(ctx, entry, work);
      if (ctx.timedOut()) {
        timedOut(ctx, run, name, timeout);
      } else if (!source.isCancelled()) {
        run.complete(ToolResultTree.of(core.json(), result), result.failed());
      }
    } catch (RequestCancelledException e) {
      if (ctx.timedOut()) {
        timedOut(ctx, run, name, timeout);
      } else {
        run.cancel(e.getMessage());
      }
    } catch (McpException e) {
      run.fail(ctx.view().wire().error(e));
    } catch (ControlSignal e) {
      // Neither can happen in a task context; if it does, the task fails cleanly.
      run.fail(HandlerFailures.internal(LOG, "task of tool " + name, e).toError());
    } catch (Exception | Error e) {
      if (e instanceof VirtualMachineError vm) {
        run.fail(McpException.internalError().toError());
        throw vm;
      }
      if (source.isCancelled()) {
        run.cancel(source.reason());
      } else {
        run.fail(HandlerFailures.internal(LOG, "task of tool " + name, e).toError());
      }
    } finally {
      source.unbindThread();
      ctx.complete();
      if (timer != null) {
        timer.cancel(false);
      }
    }
  }

  private static void timedOut(RealRequestContext ctx, TaskRun run, String name,
      Duration timeout) {
    CallToolResult error = CallToolResult.error("Tool " + name + " timed out after "
        + timeout.toMillis() + " ms");
    run.complete(ctx.core().json().toObject(error), true);
  }

  static JsonNode get(RealRequestContext ctx, ObjectNode params) {
    return ctx.view().wire().tasks().status(find(ctx, params));
  }

  /**
   * Legacy {@code tasks/result}: blocks until the task ends, meanwhile carrying the task's
   * requests to the client, then answers exactly what the call would have: its result (with the
   * related-task {@code _meta}) or its JSON-RPC error.
   */
  static JsonNode result(RealRequestContext ctx, ObjectNode params) {
    StoredTask task = find(ctx, params);
    TaskEngine engine = ctx.core().tasks();
    while (!task.status().terminal()) {
      Optional<TaskRun> run = engine.run(task.taskId());
      try {
        if (run.isPresent()) {
          run.get().outbox().attach(ctx.stream());
          try {
            run.get().ended().get();
          } finally {
            run.get().outbox().detach(ctx.stream());
          }
        } else {
          // No handler here (a shared store): poll as a client would.
          Thread.sleep(Math.max(50, task.pollIntervalMillis()));
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RequestCancelledException(ctx.cancellation().isCancelled()
            ? ctx.cancellation().reason() : "interrupted");
      } catch (ExecutionException e) {
        throw McpException.internalError();
      }
      task = find(ctx, params);
    }
    if (task.status() == TaskStatus.CANCELLED) {
      throw McpException.invalidParams("Task was cancelled: it has no result");
    }
    if (task.result() != null) {
      ObjectNode result = task.result().deepCopy();
      JsonNode meta = result.get("_meta");
      ObjectNode m = meta instanceof ObjectNode o ? o : result.putObject("_meta");
      m.set(MetaKeys.RELATED_TASK, TaskJson.related(task.taskId()));
      return result;
    }
    ObjectNode error = task.error();
    if (error == null) {
      throw McpException.internalError();
    }
    throw new McpException(error.path("code").asInt(ErrorCodes.INTERNAL_ERROR),
        error.path("message").asString("Internal error"), error.get("data"));
  }

  /** Legacy {@code tasks/list}: the caller's own tasks, oldest first, paginated. */
  static JsonNode list(RealRequestContext ctx, ObjectNode params) {
    ServerCore core = ctx.core();
    List<StoredTask> mine = core.tasks().list(ctx.principal().fingerprint(), ctx.sessionId())
        .stream().filter(TaskDialect.LEGACY::owns).toList();
    Cursors.Page<StoredTask> page = Cursors.page(mine, Cursors.cursorOf(params),
        core.pageSize());
    ObjectNode result = McpJson.object();
    page.items().forEach(t -> result.withArray("tasks").add(TaskJson.legacy(t)));
    if (!result.has("tasks")) {
      result.putArray("tasks");
    }
    if (page.nextCursor() != null) {
      result.put("nextCursor", page.nextCursor());
    }
    return result;
  }

  /**
   * {@code tasks/cancel}. Legacy: the task is {@code cancelled} before the answer, which is the
   * task; cancelling a task that already ended is -32602. Stateless: an empty acknowledgement,
   * for an ended task too (the extension keeps -32602 for unknown ids).
   */
  static JsonNode cancel(RealRequestContext ctx, ObjectNode params) {
    StoredTask task = find(ctx, params);
    TaskDialect dialect = ctx.view().wire().tasks();
    if (task.status().terminal()) {
      return dialect.cancelEnded(task);
    }
    ctx.core().tasks().cancel(task.taskId(), "cancelled by the client");
    return dialect.cancelled(() -> find(ctx, params));
  }

  /**
   * Stateless {@code tasks/update}: answers to the task's input requests. Answers to keys that
   * are not waiting are ignored; the acknowledgement is empty.
   */
  static JsonNode update(RealRequestContext ctx, ObjectNode params) {
    JsonNode responses = params.get("inputResponses");
    if (!(responses instanceof ObjectNode answers)) {
      throw McpException.invalidParams("Invalid params: inputResponses must be an object");
    }
    StoredTask task = find(ctx, params);
    ctx.core().tasks().answer(task.taskId(), answers);
    return McpJson.object();
  }

  /** Finds the caller's task named by {@code params.taskId}, or fails with -32602. */
  private static StoredTask find(RealRequestContext ctx, ObjectNode params) {
    TaskDialect dialect = ctx.view().wire().tasks();
    dialect.admit(ctx);
    JsonNode id = params.get("taskId");
    if (id == null || !id.isString()) {
      throw McpException.invalidParams("Invalid params: taskId must be a string");
    }
    return ctx.core().tasks()
        .find(id.stringValue(), ctx.principal().fingerprint(), ctx.sessionId())
        .filter(dialect::owns)
        .orElseThrow(() -> McpException.invalidParams("Task not found"));
  }
}
