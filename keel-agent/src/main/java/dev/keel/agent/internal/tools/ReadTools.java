package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.db.ColumnInfo;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.sql.Identifiers;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolAnnotations;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools that need no SQL from the caller: list tables, describe one, sample its rows,
 * count rows, and the most frequent values of a column. Their SQL is built here from names
 * resolved among the visible tables and columns, with every value bound.
 */
public final class ReadTools {

  private final AgentCore core;

  private ReadTools(AgentCore core) {
    this.core = core;
  }

  /** Returns the tools of one source (for prompts and resources). */
  public static ReadTools of(AgentCore core) {
    return new ReadTools(core);
  }

  /** Registers the tools on {@code server}; each call runs on the source it names. */
  public static void register(McpServer.Builder server, Sources sources, ToolOptions options) {
    server.tool(tool("list_tables", "List the tables and views you can query, with their "
        + "descriptions and column counts.", Schemas.NO_ARGS, Schemas.OUT_TABLES), options,
        Guarded.of("list_tables", sources, (core, ctx, args) -> of(core).listTables(ctx, args)));
    server.tool(tool("describe_table", "Describe a table: columns with types, primary key, "
        + "foreign keys, indexes and an estimate of its rows.", Schemas.TABLE_ONLY,
        Schemas.OUT_DESCRIBE), options,
            Guarded.of("describe_table", sources,
                (core, ctx, args) -> of(core).describe(ctx, args)));
    server.tool(tool("sample_rows", "Show a few rows of a table (in primary key order), "
        + "optionally only some columns or rows matching filters.", Schemas.SAMPLE,
        Schemas.OUT_ROWS), options,
            Guarded.of("sample_rows", sources,
                (core, ctx, args) -> of(core).sample(ctx, args)));
    server.tool(tool("count_rows", "Count the rows of a table, optionally only those "
        + "matching filters.", Schemas.COUNT, Schemas.OUT_COUNT), options,
        Guarded.of("count_rows", sources, (core, ctx, args) -> of(core).count(ctx, args)));
    server.tool(tool("top_values", "The most frequent values of a column with their counts "
        + "(a GROUP BY count), optionally over rows matching filters.", Schemas.TOP_VALUES,
        Schemas.OUT_TOP), options,
            Guarded.of("top_values", sources,
                (core, ctx, args) -> of(core).topValues(ctx, args)));
  }

  static Tool tool(String name, String description, String input, String output) {
    return Tool.builder(name).description(description).inputSchema(Schemas.withSource(input))
        .outputSchema(output)
        .annotations(ToolAnnotations.readOnly()).build();
  }

  private CallToolResult listTables(RequestContext ctx, ObjectNode args) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.set("tables", core.tableList(core.visible(ctx)));
    return CallToolResult.structured(out);
  }

  private CallToolResult describe(RequestContext ctx, ObjectNode args) {
    VisibleSchema visible = core.visible(ctx);
    TableInfo table = core.table(visible, args.path("table").asString(null));
    return CallToolResult.structured(core.describe(visible, table));
  }

  private CallToolResult sample(RequestContext ctx, ObjectNode args) {
    VisibleSchema visible = core.visible(ctx);
    TableInfo table = core.table(visible, args.path("table").asString(null));
    int limit = args.path("limit").asInt(10);
    return CallToolResult.structured(sampleRows(ctx, table, columnsOf(table, args.get("columns")),
        args.get("filters"), limit));
  }

  /** Returns the first rows of a table in primary key order. */
  public ObjectNode sampleRows(RequestContext ctx, TableInfo table, List<ColumnInfo> columns,
      JsonNode filters, int limit) {
    Identifiers ids = core.db().identifiers();
    List<JsonNode> params = new ArrayList<>();
    String where = Filters.where(core, table, filters, params);
    List<String> order;
    try {
      order = core.catalog().keys(table.name()).primaryKey();
    } catch (java.sql.SQLException e) {
      order = List.of();
    }
    String orderBy = order.isEmpty() || !table.columnNames().containsAll(order) ? ""
        : " ORDER BY " + order.stream().map(ids::quote).collect(Collectors.joining(", "));
    String sql = "SELECT " + columns.stream().map(c -> ids.quote(c.name()))
        .collect(Collectors.joining(", ")) + " FROM " + core.relation(table)
        + where + orderBy;
    return core.runner().read(ctx, sql, params, Math.max(1, Math.min(limit, 100)));
  }

  private List<ColumnInfo> columnsOf(TableInfo table, JsonNode requested) {
    if (requested == null || requested.isNull() || requested.isEmpty()) {
      return table.columns();
    }
    List<ColumnInfo> columns = new ArrayList<>();
    for (JsonNode name : requested) {
      columns.add(core.column(table, name.asString(null)));
    }
    return columns;
  }

  private CallToolResult count(RequestContext ctx, ObjectNode args) {
    VisibleSchema visible = core.visible(ctx);
    TableInfo table = core.table(visible, args.path("table").asString(null));
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("table", table.name());
    out.put("count", countRows(ctx, table, args.get("filters")));
    return CallToolResult.structured(out);
  }

  /** Counts the rows of a table that match {@code filters}. */
  public long countRows(RequestContext ctx, TableInfo table, JsonNode filters) {
    List<JsonNode> params = new ArrayList<>();
    String sql = "SELECT COUNT(*) FROM " + core.relation(table)
        + Filters.where(core, table, filters, params);
    ObjectNode result = core.runner().read(ctx, sql, params, 1);
    return result.get("rows").get(0).get(0).asLong();
  }

  private CallToolResult topValues(RequestContext ctx, ObjectNode args) {
    VisibleSchema visible = core.visible(ctx);
    TableInfo table = core.table(visible, args.path("table").asString(null));
    ColumnInfo column = core.column(table, args.path("column").asString(null));
    return CallToolResult.structured(topValues(ctx, table, column, args.get("filters"),
        args.path("limit").asInt(10)));
  }

  /** Returns the most frequent values of a column with their counts. */
  public ObjectNode topValues(RequestContext ctx, TableInfo table, ColumnInfo column,
      JsonNode filters, int limit) {
    Identifiers ids = core.db().identifiers();
    String name = ids.quote(column.name());
    List<JsonNode> params = new ArrayList<>();
    String where = Filters.where(core, table, filters, params);
    String from = " FROM " + core.relation(table) + where;
    ObjectNode totals = core.runner().read(ctx, "SELECT COUNT(*), COUNT(DISTINCT " + name + ")"
        + from, params, 1);
    ObjectNode top = core.runner().read(ctx, "SELECT " + name + ", COUNT(*)" + from
        + " GROUP BY " + name + " ORDER BY 2 DESC, 1", params, Math.max(1, Math.min(limit, 100)));
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("table", table.name());
    out.put("column", column.name());
    JsonNode counts = totals.get("rows").get(0);
    out.put("rows", counts.get(0).asLong());
    out.put("distinct", counts.get(1).asLong());
    ArrayNode values = out.putArray("values");
    for (JsonNode row : top.get("rows")) {
      ObjectNode v = values.addObject();
      v.set("value", row.get(0));
      v.put("count", row.get(1).asLong());
    }
    if (top.path("truncated").asBoolean(false) && top.has("truncation")) {
      out.put("note", "only the " + values.size() + " most frequent values are shown");
    }
    return out;
  }
}
