package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.analysis.JsonPlan;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.Admission;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolOptions;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools that take the caller's SQL: run a read-only query with bound parameters, and
 * explain one. Both pass the statement check first (layer one), then run in a read-only
 * transaction (layer two), bounded in rows, bytes and time.
 */
public final class QueryTools {

  /** The most plan lines an explanation keeps. */
  static final int MAX_PLAN_LINES = 500;

  private final AgentCore core;

  private QueryTools(AgentCore core) {
    this.core = core;
  }

  /** Registers the tools on {@code server}; each call runs on the source it names. */
  public static void register(McpServer.Builder server, Sources sources, ToolOptions options) {
    AgentCore core = sources.all().get(0);
    int maxRows = core.limits().maxRows();
    server.tool(ReadTools.tool("query", "Run one read-only SQL query (SELECT, WITH ... "
        + "SELECT, VALUES, TABLE) with ? placeholders bound to params. Results stop at "
        + maxRows + " rows or " + core.limits().maxResultBytes() / 1024 + " KiB; a cut result "
        + "has truncated=true and says why. Writes, DDL, several statements, SELECT INTO, "
        + "locking clauses and state-changing functions are refused.",
        Schemas.query(maxRows), Schemas.OUT_ROWS), options,
            Guarded.of("query", sources,
                (c, ctx, args) -> new QueryTools(c).query(ctx, args)));
    server.tool(ReadTools.tool("explain", "Show the database's plan for a read-only query "
        + "without running it (on PostgreSQL as the JSON of EXPLAIN (FORMAT JSON), with the "
        + "estimated total cost and rows).", Schemas.EXPLAIN, Schemas.OUT_EXPLAIN), options,
        Guarded.of("explain", sources, (c, ctx, args) -> new QueryTools(c).explain(ctx, args)));
  }

  private CallToolResult query(RequestContext ctx, ObjectNode args) {
    // admitted before the statement is parsed: parsing is work too
    try (Admission admission = core.runner().admit(ctx)) {
      VisibleSchema visible = core.visible(ctx);
      List<JsonNode> params = params(args);
      AgentCore.Checked checked = core.checked(args.path("sql").asString(""), visible,
          params.size());
      int maxRows = args.path("maxRows").asInt(core.limits().maxRows());
      return CallToolResult.structured(core.runner().read(admission, ctx, checked.sql(),
          params, maxRows, checked.tables()));
    }
  }

  private CallToolResult explain(RequestContext ctx, ObjectNode args) {
    // --- PostgreSQL: the plan as JSON (internal/analysis/JsonPlan) ---
    if (JsonPlan.applies(core)) {
      return CallToolResult.structured(JsonPlan.explain(core, core.visible(ctx),
          ctx, args.path("sql").asString(""), params(args)));
    }
    ObjectNode plan;
    try (Admission admission = core.runner().admit(ctx)) {
      VisibleSchema visible = core.visible(ctx);
      List<JsonNode> params = params(args);
      AgentCore.Checked checked = core.checked(args.path("sql").asString(""), visible,
          params.size());
      plan = core.runner().explain(admission, ctx, checked.sql(), params, MAX_PLAN_LINES,
          checked.tables());
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode row : plan.get("rows")) {
      for (JsonNode cell : row) {
        text.append(cell.isString() ? cell.stringValue() : cell.toString()).append('\n');
      }
    }
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("format", "text");
    out.put("plan", text.toString().stripTrailing());
    out.put("truncated", plan.path("truncated").asBoolean(false));
    return CallToolResult.structured(out);
  }

  private static List<JsonNode> params(ObjectNode args) {
    List<JsonNode> params = new ArrayList<>();
    JsonNode given = args.get("params");
    if (given != null && given.isArray()) {
      given.forEach(params::add);
    }
    return params;
  }
}
