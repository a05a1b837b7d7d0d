package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.db.ColumnInfo;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.sql.Identifiers;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolAnnotations;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Insert and update, registered only when the operator allowed writes. Each call is shown to a
 * person through the approval gate (SPEC §3.6) and runs only after an explicit approval; a
 * client without elicitation cannot ask anyone, so its calls are refused. Everything before the
 * approval only reads, because in the stateless era the handler runs again once the answer
 * arrives. Values are bound, names come from the visible columns, and an update changes at most
 * the configured number of rows, exactly the number the person approved.
 */
public final class WriteTools {

  private final AgentCore core;

  private WriteTools(AgentCore core) {
    this.core = core;
  }

  /**
   * Registers the tools on {@code server}; each call runs on the source it names, which must be
   * one whose writes the operator allowed.
   */
  public static void register(McpServer.Builder server, Sources sources, ToolOptions options) {
    AgentCore core = sources.all().stream().filter(c -> c.db().allowsWrites()).findFirst()
        .orElse(sources.all().get(0));
    server.tool(Tool.builder("insert_row").description("Insert one row into a table. A person "
            + "must approve each insert; clients that cannot ask (no elicitation) are refused.")
        .inputSchema(Schemas.withSource(Schemas.INSERT)).outputSchema(Schemas.OUT_WRITE)
        .annotations(new ToolAnnotations(null, false, false, false, false)).build(),
        options, Guarded.write("insert_row", sources, (c, ctx, args) -> writer(c).insert(ctx, args)));
    server.tool(Tool.builder("update_rows").description("Change columns of the rows matching "
            + "filters (at most " + core.limits().maxRowsPerUpdate() + " rows). A person must "
            + "approve each update; clients that cannot ask (no elicitation) are refused.")
        .inputSchema(Schemas.withSource(Schemas.UPDATE)).outputSchema(Schemas.OUT_WRITE)
        .annotations(new ToolAnnotations(null, false, true, false, false)).build(),
        options, Guarded.write("update_rows", sources,
            (c, ctx, args) -> writer(c).update(ctx, args, ReadTools.of(c))));
  }

  private static WriteTools writer(AgentCore core) {
    if (!core.db().allowsWrites()) {
      throw new QueryFailedException("Writes are not allowed on source " + core.name()
          + "; nothing was written");
    }
    return new WriteTools(core);
  }

  private CallToolResult insert(RequestContext ctx, ObjectNode args) {
    VisibleSchema visible = core.visible(ctx);
    TableInfo table = core.table(visible, args.path("table").asString(null));
    Identifiers ids = core.db().identifiers();
    List<String> names = new ArrayList<>();
    List<JsonNode> params = new ArrayList<>();
    ObjectNode shown = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> e : args.path("values").properties()) {
      ColumnInfo column = core.column(table, e.getKey());
      names.add(ids.quote(column.name()));
      params.add(e.getValue());
      shown.set(column.name(), e.getValue());
    }
    if (table.rowFilter() != null) {
      // the new row might be one the principal may not see; nothing proves otherwise before it
      // is written
      return CallToolResult.error("Inserting into " + table.name() + " is not allowed for you "
          + "(you see only some of its rows); nothing was written");
    }
    CallToolResult refused = approve(ctx, "Insert into " + table.name() + " the row "
        + McpJson.standard().write(shown) + "?");
    if (refused != null) {
      return refused;
    }
    String sql = "INSERT INTO " + core.db().qualified(table.name()) + " ("
        + String.join(", ", names) + ") VALUES (" + "?, ".repeat(names.size() - 1) + "?)";
    int changed = core.runner().write(ctx, sql, params, 1);
    return written(table, changed);
  }

  private CallToolResult update(RequestContext ctx, ObjectNode args, ReadTools reads) {
    VisibleSchema visible = core.visible(ctx);
    TableInfo table = core.table(visible, args.path("table").asString(null));
    Identifiers ids = core.db().identifiers();
    List<String> sets = new ArrayList<>();
    List<JsonNode> params = new ArrayList<>();
    ObjectNode shown = JsonNodeFactory.instance.objectNode();
    for (Map.Entry<String, JsonNode> e : args.path("set").properties()) {
      ColumnInfo column = core.column(table, e.getKey());
      sets.add(ids.quote(column.name()) + " = ?");
      params.add(e.getValue());
      shown.set(column.name(), e.getValue());
    }
    JsonNode filters = args.get("filters");
    String where = Filters.where(core, table, filters, params);
    long matching = reads.countRows(ctx, table, filters);
    if (matching == 0) {
      return CallToolResult.error("No rows of " + table.name() + " match the filters; nothing "
          + "was written");
    }
    if (matching > core.limits().maxRowsPerUpdate()) {
      return CallToolResult.error(matching + " rows of " + table.name() + " match, more than "
          + "the " + core.limits().maxRowsPerUpdate() + " one update may change; narrow the "
          + "filters. Nothing was written");
    }
    CallToolResult refused = approve(ctx, "Update " + matching + " row"
        + (matching == 1 ? "" : "s") + " of " + table.name() + " matching "
        + McpJson.standard().write(filters) + ", setting " + McpJson.standard().write(shown)
        + "?");
    if (refused != null) {
      return refused;
    }
    // only rows the principal sees: the count above read them through the same rule
    String rows = table.rowFilter() == null ? "" : (where.isEmpty() ? " WHERE " : " AND ")
        + table.rowFilter();
    String sql = "UPDATE " + core.db().qualified(table.name()) + " SET "
        + String.join(", ", sets) + where + rows;
    int changed = core.runner().write(ctx, sql, params, (int) matching);
    return written(table, changed);
  }

  /** Asks for approval; returns the refusal to send, or null when approved. */
  private static CallToolResult approve(RequestContext ctx, String question) {
    if (!ctx.clientCapabilities().supportsElicitationForm()) {
      return CallToolResult.error("Writes need a person's approval, and this client cannot "
          + "ask for it (it did not declare the elicitation capability); nothing was written");
    }
    if (!ctx.requireApproval(question)) {
      return CallToolResult.error("Not approved; nothing was written");
    }
    return null;
  }

  private static CallToolResult written(TableInfo table, int changed) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("table", table.name());
    out.put("rowsChanged", changed);
    return CallToolResult.structured(out);
  }
}
