package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.analysis.HealthSummary;
import dev.keel.agent.internal.analysis.IndexAdvice;
import dev.keel.agent.internal.analysis.SlowStatements;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolOptions;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The analysis tools (PostgreSQL): index advice with hypothetical indexes, the slowest
 * statements, and a health summary of the caller's tables. They are offered on every engine
 * and answer elsewhere, or without the extension they need, with a tool error saying what is
 * missing. Their logic lives in {@code internal/analysis}.
 */
public final class AnalysisTools {

  static final String SUGGEST = "{\"type\":\"object\",\"properties\":{"
      + "\"sql\":{\"type\":\"string\",\"description\":\"the read-only query to find indexes "
      + "for (it is planned, never run)\"},"
      + Schemas.PARAMS + "},\"required\":[\"sql\"],\"additionalProperties\":false}";

  static final String SLOW = "{\"type\":\"object\",\"properties\":{"
      + "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":50,\"default\":10},"
      + "\"orderBy\":{\"type\":\"string\",\"enum\":[\"total\",\"mean\"],\"default\":\"total\","
      + "\"description\":\"total or mean execution time\"}},\"additionalProperties\":false}";

  static final String HEALTH = "{\"type\":\"object\",\"properties\":{"
      + "\"longTransactionSeconds\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":86400,"
      + "\"default\":60,\"description\":\"list transactions open at least this long\"}},"
      + "\"additionalProperties\":false}";

  static final String OUT_SUGGEST = "{\"type\":\"object\",\"properties\":{"
      + "\"costBefore\":{\"type\":\"number\"},\"candidatesTried\":{\"type\":\"integer\"},"
      + "\"suggestions\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"table\":{\"type\":\"string\"},"
      + "\"columns\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
      + "\"createIndex\":{\"type\":\"string\"},\"costBefore\":{\"type\":\"number\"},"
      + "\"costAfter\":{\"type\":\"number\"},\"improvement\":{\"type\":\"string\"}},"
      + "\"required\":[\"table\",\"columns\",\"createIndex\",\"costBefore\",\"costAfter\"]}},"
      + "\"message\":{\"type\":\"string\"}},\"required\":[\"costBefore\",\"suggestions\"]}";

  static final String OUT_SLOW = "{\"type\":\"object\",\"properties\":{"
      + "\"statements\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"query\":{\"type\":[\"string\",\"null\"]},\"calls\":{\"type\":\"integer\"},"
      + "\"totalMillis\":{\"type\":\"number\"},\"meanMillis\":{\"type\":\"number\"},"
      + "\"maxMillis\":{\"type\":\"number\"},\"rows\":{\"type\":\"integer\"},"
      + "\"cacheHitRatio\":{\"type\":[\"number\",\"null\"]}},"
      + "\"required\":[\"query\",\"calls\",\"totalMillis\",\"meanMillis\"]}},"
      + "\"orderedBy\":{\"type\":\"string\"}},\"required\":[\"statements\"]}";

  static final String OUT_HEALTH = "{\"type\":\"object\",\"properties\":{"
      + "\"tableCacheHitRatio\":{\"type\":[\"number\",\"null\"]},"
      + "\"indexCacheHitRatio\":{\"type\":[\"number\",\"null\"]},"
      + "\"deadRows\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
      + "\"unusedIndexes\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
      + "\"invalidIndexes\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
      + "\"longTransactions\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
      + "\"properties\":{\"state\":{\"type\":[\"string\",\"null\"]},"
      + "\"ageSeconds\":{\"type\":\"number\"},\"waiting\":{\"type\":\"boolean\"}}}}},"
      + "\"required\":[\"deadRows\",\"unusedIndexes\",\"invalidIndexes\",\"longTransactions\"]}";

  private final AgentCore core;

  private AnalysisTools(AgentCore core) {
    this.core = core;
  }

  /** Registers the tools on {@code server}. */
  public static void register(McpServer.Builder server, Sources sources, ToolOptions options) {
    server.tool(ReadTools.tool("suggest_indexes", "Suggest indexes that would make a read-only "
        + "query cheaper (PostgreSQL with the hypopg extension): single- and two-column "
        + "indexes on the columns it filters, joins and sorts by are tried hypothetically, and "
        + "those that lower the planner's cost come back with the cost before and after and "
        + "the CREATE INDEX statement. Nothing is built.", SUGGEST, OUT_SUGGEST), options,
        Guarded.of("suggest_indexes", sources,
            (c, ctx, args) -> new AnalysisTools(c).suggest(ctx, args)));
    server.tool(ReadTools.tool("slow_statements", "The statements of this database that took "
        + "longest (PostgreSQL with pg_stat_statements), with calls, times and rows; only for "
        + "a principal that may see every table.", SLOW, OUT_SLOW), options,
        Guarded.of("slow_statements", sources,
            (c, ctx, args) -> new AnalysisTools(c).slow(ctx, args)));
    server.tool(ReadTools.tool("health", "A health summary of your tables (PostgreSQL): cache "
        + "hit ratio, dead rows, indexes never used and invalid ones, and transactions open "
        + "long (age and state only).", HEALTH, OUT_HEALTH), options, Guarded.of("health", sources,
            (c, ctx, args) -> new AnalysisTools(c).health(ctx, args)));
  }

  private CallToolResult suggest(RequestContext ctx, ObjectNode args) {
    List<JsonNode> params = new ArrayList<>();
    JsonNode given = args.get("params");
    if (given != null && given.isArray()) {
      given.forEach(params::add);
    }
    return CallToolResult.structured(IndexAdvice.suggest(core, core.visible(ctx), ctx,
        args.path("sql").asString(""), params));
  }

  private CallToolResult slow(RequestContext ctx, ObjectNode args) {
    return CallToolResult.structured(SlowStatements.list(core, core.visible(ctx), ctx,
        args.path("limit").asInt(10), args.path("orderBy").asString("total")));
  }

  private CallToolResult health(RequestContext ctx, ObjectNode args) {
    return CallToolResult.structured(HealthSummary.of(core, core.visible(ctx), ctx,
        args.path("longTransactionSeconds").asInt(60)));
  }
}
