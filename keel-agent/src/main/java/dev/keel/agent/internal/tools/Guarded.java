package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.audit.AuditEntry;
import dev.keel.agent.internal.audit.AuditEntry.Outcome;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolHandler;
import java.util.Locale;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool body whose refusals and failures become tool errors the model can read and act on
 * (MCP: errors of execution are results, not protocol errors; their messages were written for
 * the peer already), run on the source its arguments name, with every outcome written to the
 * source's audit trail, and its result marked as data from the database (see
 * {@link Untrusted}).
 */
@FunctionalInterface
interface Guarded {

  /** Runs the tool on one source. */
  CallToolResult call(AgentCore core, RequestContext ctx, ObjectNode args) throws Exception;

  /** Picks the source a call runs on. */
  @FunctionalInterface
  interface Picker {
    /**
     * Returns the source.
     *
     * @throws QueryFailedException when the caller may not use it
     */
    AgentCore pick(RequestContext ctx, ObjectNode args);
  }

  /** Returns the handler of tool {@code tool}: source picked, outcome audited and reported. */
  static ToolHandler of(String tool, Sources sources, Guarded body) {
    return of(tool, (ctx, args) -> sources.pick(ctx, args), body);
  }

  /** Returns the handler of tool {@code tool} on the source {@code picker} chooses. */
  static ToolHandler of(String tool, Picker picker, Guarded body) {
    return of(tool, picker, args -> statement(tool, args), body);
  }

  /**
   * Returns the handler of tool {@code tool} on the source {@code picker} chooses, with
   * {@code shown} saying what the audit trail records as its statement.
   */
  static ToolHandler of(String tool, Picker picker,
      java.util.function.Function<ObjectNode, String> shown, Guarded body) {
    return handler(tool, picker, shown, false, body);
  }

  /**
   * Returns the handler of write tool {@code tool}: a failed call is audited as a declined
   * write (the person said no, or could not be asked), a successful one as an approved write.
   */
  static ToolHandler write(String tool, Sources sources, Guarded body) {
    return handler(tool, (ctx, args) -> sources.pick(ctx, args), args -> statement(tool, args),
        true, body);
  }

  private static ToolHandler handler(String tool, Picker picker,
      java.util.function.Function<ObjectNode, String> shown, boolean writes, Guarded body) {
    return (ctx, args) -> {
      long started = System.nanoTime();
      AgentCore core;
      try {
        core = picker.pick(ctx, args);
      } catch (QueryFailedException e) {
        return CallToolResult.error(e.getMessage());
      }
      String statement = shown.apply(args);
      try {
        CallToolResult result = body.call(core, ctx, args);
        if (result.failed()) {
          String reason = result.content().isEmpty()
              || !(result.content().get(0) instanceof TextContent text) ? null : text.text();
          audit(core, ctx, tool, statement, writes ? Outcome.WRITE_DECLINED : Outcome.REFUSED,
              reason, started, -1);
          return result;
        }
        JsonNode out = result.structuredContent();
        boolean cut = out != null && out.path("truncated").asBoolean(false);
        Outcome outcome = writes ? Outcome.WRITE_APPROVED
            : cut ? Outcome.TRUNCATED : Outcome.RAN;
        audit(core, ctx, tool, statement, outcome, cut ? out.path("truncation").asString(null)
            : null, started, rows(out));
        return Untrusted.mark(result);
      } catch (QueryRefusedException e) {
        audit(core, ctx, tool, statement, Outcome.REFUSED, e.getMessage(), started, -1);
        return CallToolResult.error("Refused: " + e.getMessage());
      } catch (QueryFailedException e) {
        String message = e.getMessage();
        String lower = message.toLowerCase(Locale.ROOT);
        audit(core, ctx, tool, statement, lower.contains("timeout") || lower.contains("timed out")
            ? Outcome.TIMED_OUT : Outcome.FAILED, message, started, -1);
        return CallToolResult.error(message);
      } catch (RequestCancelledException e) {
        audit(core, ctx, tool, statement, Outcome.CANCELLED, null, started, -1);
        throw e;
      } catch (RuntimeException e) {
        // answered by the server (a protocol error, or "Tool ... failed"); recorded all the same
        audit(core, ctx, tool, statement, Outcome.FAILED, e.getMessage(), started, -1);
        throw e;
      }
    };
  }

  /** What the audit trail shows as the statement: the caller's SQL, or the call itself. */
  private static String statement(String tool, ObjectNode args) {
    JsonNode sql = args.get("sql");
    if (sql != null && sql.isString()) {
      return sql.stringValue();
    }
    ObjectNode shown = args.deepCopy();
    shown.remove("source");
    // values of writes are the caller's data: the audit shows which columns, not what
    shown.remove("values");
    shown.remove("set");
    if (args.get("values") instanceof ObjectNode values) {
      shown.putArray("columns").addAll(values.propertyNames().stream()
          .map(n -> shown.stringNode(n)).toList());
    }
    if (args.get("set") instanceof ObjectNode set) {
      shown.putArray("setColumns").addAll(set.propertyNames().stream()
          .map(n -> shown.stringNode(n)).toList());
    }
    return tool + " " + McpJson.standard().write(shown);
  }

  private static long rows(JsonNode out) {
    if (out == null) {
      return -1;
    }
    for (String field : new String[] {"rowCount", "rowsChanged"}) {
      if (out.has(field)) {
        return out.get(field).asLong();
      }
    }
    return out.has("count") ? 1 : -1;
  }

  private static void audit(AgentCore core, RequestContext ctx, String tool, String statement,
      Outcome outcome, String reason, long started, long rows) {
    core.audit().record(new AuditEntry(ctx.principal().id(), ctx.principal().fingerprint(),
        core.name(), tool, statement, outcome, reason,
        (System.nanoTime() - started) / 1_000_000, rows));
  }
}
