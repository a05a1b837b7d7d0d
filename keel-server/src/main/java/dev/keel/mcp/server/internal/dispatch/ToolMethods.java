package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.CallToolRequest;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ListToolsResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.internal.registry.ToolEntry;
import dev.keel.mcp.server.TaskWork;
import dev.keel.mcp.server.internal.tasks.TaskSignal;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code tools/list} and {@code tools/call}: validation of the arguments before the handler,
 * of the structured output after it, and the mapping of handler failures to tool errors.
 */
final class ToolMethods {

  private static final Logger LOG = LoggerFactory.getLogger(ToolMethods.class);

  private ToolMethods() {}

  static JsonNode list(RealRequestContext ctx, ObjectNode params) {
    ServerCore core = ctx.core();
    // a tool the caller's scopes do not cover is not shown to it
    List<Tool> tools = core.registry().tools().stream()
        .filter(t -> ctx.principal().grants(t.options().requiredScopes()))
        .map(ToolEntry::tool).toList();
    Cursors.Page<Tool> page = Cursors.page(tools, Cursors.cursorOf(params), core.pageSize());
    return core.json().toTree(new ListToolsResult(page.items(), page.nextCursor(), null));
  }

  static JsonNode call(RealRequestContext ctx, ObjectNode params) throws Exception {
    ServerCore core = ctx.core();
    CallToolRequest call = callOf(params);
    // the tool the call was routed to, resolved once when the call was made
    ToolEntry entry = ctx.routedTool();
    if (entry == null) {
      throw McpException.invalidParams("Unknown tool: " + Text.safe(call.name()));
    }
    ObjectNode arguments = call.arguments() == null
        ? JsonNodeFactory.instance.objectNode() : call.arguments();
    TaskMethods.Mode mode = TaskMethods.decide(ctx, entry, params);
    if (mode == TaskMethods.Mode.NOW) {
      return TaskMethods.start(ctx, entry, params, arguments, null);
    }
    ctx.taskOnDemand(mode == TaskMethods.Mode.ON_DEMAND);
    CallToolResult result;
    try {
      result = run(ctx, entry, arguments);
    } catch (Exception e) {
      // a TaskSignal, or whatever the tool threw after swallowing one
      if (ctx.signalled() instanceof TaskSignal signal) {
        return TaskMethods.start(ctx, entry, params, arguments, signal.work());
      }
      throw e;
    }
    if (ctx.signalled() instanceof TaskSignal signal) {
      // the tool swallowed its continueAsTask and returned: it still continues as a task
      return TaskMethods.start(ctx, entry, params, arguments, signal.work());
    }
    return ToolResultTree.of(core.json(), result);
  }

  /**
   * Reads {@code tools/call} params by hand. Data binding copied the whole arguments tree token
   * by token, and on a small tool that copy cost more than the tool itself.
   */
  static CallToolRequest callOf(ObjectNode params) {
    JsonNode name = params == null ? null : params.get("name");
    if (name == null || !name.isString()) {
      throw McpException.invalidParams("Invalid params: name");
    }
    return new CallToolRequest(name.asString(), objectOrNull(params, "arguments"),
        objectOrNull(params, "task"), objectOrNull(params, "_meta"));
  }

  private static ObjectNode objectOrNull(ObjectNode params, String field) {
    JsonNode value = params.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (value instanceof ObjectNode object) {
      return object;
    }
    throw McpException.invalidParams("Invalid params: " + field);
  }

  /** Runs a tool: arguments checked, approval asked, handler called, output checked. */
  static CallToolResult run(RealRequestContext ctx, ToolEntry entry,
      ObjectNode arguments) throws Exception {
    String name = entry.tool().name();
    if (entry.input().isPresent()) {
      List<String> problems = entry.input().get().validate(arguments);
      if (!problems.isEmpty()) {
        return CallToolResult.error("Invalid arguments for tool " + name + ": "
            + String.join("; ", problems));
      }
    }
    if (entry.options().requiresApproval()) {
      ApprovalGate.Outcome outcome = ApprovalGate.ask(ctx,
          "Allow the tool " + name + " to run with these arguments?", arguments);
      if (outcome != ApprovalGate.Outcome.APPROVED) {
        // Fails closed: the handler never runs without an explicit approval.
        return CallToolResult.error("Tool " + name + " was not approved ("
            + outcome.name().toLowerCase(java.util.Locale.ROOT) + "); it did not run");
      }
    }
    return invoke(ctx, entry, () -> entry.handler().call(ctx, arguments));
  }

  /** Runs the task part of a tool that continued as a task, with the same error mapping. */
  static CallToolResult runWork(RealRequestContext ctx, ToolEntry entry, TaskWork work)
      throws Exception {
    return invoke(ctx, entry, () -> work.run(ctx));
  }

  /**
   * Calls handler code: a handler failure becomes a tool error, protocol errors and
   * cancellation pass on, and the output is checked against the tool's schema.
   */
  private static CallToolResult invoke(RealRequestContext ctx, ToolEntry entry,
      Callable<CallToolResult> code) throws Exception {
    String name = entry.tool().name();
    CallToolResult result;
    try {
      result = code.call();
    } catch (McpException | RequestCancelledException | ControlSignal e) {
      // a control signal (input required, continue as a task) ends the attempt on purpose: it is
      // not a failure of the tool, and is neither logged nor turned into an error result
      throw e;
    } catch (InterruptedException e) {
      if (ctx.cancellation().isCancelled()) {
        throw new RequestCancelledException(ctx.cancellation().reason());
      }
      return HandlerFailures.tool(LOG, name, "was interrupted without a cancellation", e);
    } catch (Exception e) {
      if (ctx.cancellation().isCancelled()) {
        throw new RequestCancelledException(ctx.cancellation().reason());
      }
      return HandlerFailures.tool(LOG, name, "failed", e);
    }
    if (result == null) {
      return HandlerFailures.tool(LOG, name, "returned null", null);
    }
    return checkOutput(entry, result);
  }

  private static CallToolResult checkOutput(ToolEntry entry, CallToolResult result) {
    if (entry.output().isEmpty() || result.failed()) {
      return result;
    }
    String name = entry.tool().name();
    if (result.structuredContent() == null) {
      String id = HandlerFailures.log(LOG, "tool " + name
          + " declares an output schema but returned no structuredContent", null);
      return CallToolResult.error("Tool " + name + " returned no structured content (error id "
          + id + ")");
    }
    List<String> problems = entry.output().get().validate(result.structuredContent());
    if (!problems.isEmpty()) {
      String id = HandlerFailures.log(LOG, "tool " + name + " returned structuredContent that"
          + " does not match its output schema: " + problems, null);
      return CallToolResult.error("Tool " + name + " returned output that does not match its "
          + "output schema (error id " + id + ")");
    }
    return result;
  }
}
