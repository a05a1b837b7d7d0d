package dev.keel.agent.internal.features;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.audit.Audited;
import dev.keel.agent.internal.db.ColumnInfo;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.agent.internal.tools.ReadTools;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.server.McpErrors;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Prompts that start an agent off well: an overview of the database, an overview of one
 * table, and the distribution of one column. Each carries live facts (tables, columns, sample
 * rows, counts) from the caller's own view, so the model starts from the data, not a guess.
 */
public final class ExplorePrompts {

  /** The database overview prompt. */
  public static final String DATABASE = "explore_database";
  /** The table overview prompt. */
  public static final String TABLE = "explore_table";
  /** The column distribution prompt. */
  public static final String COUNT_BY = "count_by_column";

  private ExplorePrompts() {}

  /** The optional argument naming the source; the caller's first source when absent. */
  static final PromptArgument SOURCE = PromptArgument.optional("source",
      "the database to use, by name; your first one when absent");

  /** Registers the prompts on {@code server}; each reads the source its arguments name. */
  public static void register(McpServer.Builder server, Sources sources) {
    server.prompt(Prompt.of(DATABASE, "Overview of the database: its tables and how to explore "
        + "them", SOURCE), (ctx, args) -> {
          AgentCore core = source(sources, ctx, args);
          return Audited.run(core.audit(), core.name(), ctx, "prompts/get", DATABASE,
              () -> database(core, ctx));
        });
    server.prompt(Prompt.of(TABLE, "Overview of one table: columns, keys and sample rows",
        PromptArgument.required("table", "the table to explore"), SOURCE),
        (ctx, args) -> {
          AgentCore core = source(sources, ctx, args);
          return Audited.run(core.audit(), core.name(), ctx, "prompts/get", TABLE + " "
              + args, () -> table(core, ReadTools.of(core), ctx, args.get("table")));
        });
    server.prompt(Prompt.of(COUNT_BY, "How the rows of a table spread over the values of one "
        + "column", PromptArgument.required("table", "the table"),
        PromptArgument.required("column", "the column to count by"), SOURCE),
        (ctx, args) -> {
          AgentCore core = source(sources, ctx, args);
          return Audited.run(core.audit(), core.name(), ctx, "prompts/get", COUNT_BY + " "
              + args, () -> countBy(core, ReadTools.of(core), ctx, args.get("table"),
                  args.get("column")));
        });
  }

  private static AgentCore source(Sources sources, RequestContext ctx,
      java.util.Map<String, String> args) {
    return guard(() -> sources.pick(ctx, args == null ? null : args.get("source")));
  }

  private static GetPromptResult database(AgentCore core, RequestContext ctx) {
    VisibleSchema visible = guard(() -> core.visible(ctx));
    StringBuilder text = new StringBuilder("You are exploring a ").append(core.db().product())
        .append(" database through the Keel database agent (read-only SQL over MCP).\n\n");
    if (visible.tables().isEmpty()) {
      text.append("You may not see any table in it.\n");
    } else {
      text.append("The tables you may query:\n");
      for (TableInfo t : visible.tables()) {
        text.append("- ").append(t.name()).append(" (").append(t.columns().size())
            .append(" columns: ").append(String.join(", ", t.columnNames())).append(')');
        if (t.description() != null) {
          text.append(": ").append(t.description());
        }
        text.append('\n');
      }
    }
    text.append("\nGive an overview of what this database is about and how its tables relate. "
        + "Use describe_table for keys, sample_rows to see data, count_rows and top_values for "
        + "sizes and distributions, and query for read-only SQL with ? parameters. Results "
        + "stop at ").append(core.limits().maxRows()).append(" rows; aggregate rather than "
        + "page through large tables.");
    return new GetPromptResult("Overview of the database", List.of(PromptMessage.user(
        text.toString())), null);
  }

  private static GetPromptResult table(AgentCore core, ReadTools reads, RequestContext ctx,
      String name) {
    VisibleSchema visible = guard(() -> core.visible(ctx));
    TableInfo table = visible.table(name)
        .orElseThrow(() -> McpErrors.invalidParams(AgentCore.NO_TABLE));
    ObjectNode described = guard(() -> core.describe(visible, table));
    ObjectNode sample = guard(() -> reads.sampleRows(ctx, table, table.columns(), null, 5));
    String text = "Explore the table " + table.name() + ".\n\nIts structure:\n"
        + McpJson.standard().write(described) + "\n\nIts first rows:\n"
        + McpJson.standard().write(sample.get("rows")) + "\n\nDescribe what a row means, "
        + "which columns identify and relate rows, and suggest three questions this table can "
        + "answer, each with the read-only SQL (query tool) that answers it.";
    return new GetPromptResult("Overview of " + table.name(), List.of(PromptMessage.user(text)),
        null);
  }

  private static GetPromptResult countBy(AgentCore core, ReadTools reads, RequestContext ctx,
      String tableName, String columnName) {
    VisibleSchema visible = guard(() -> core.visible(ctx));
    TableInfo table = visible.table(tableName)
        .orElseThrow(() -> McpErrors.invalidParams(AgentCore.NO_TABLE));
    ColumnInfo column = table.column(columnName)
        .orElseThrow(() -> McpErrors.invalidParams(AgentCore.NO_COLUMN));
    JsonNode top = guard(() -> reads.topValues(ctx, table, column, null, 20));
    String text = "Here is how the rows of " + table.name() + " spread over " + column.name()
        + " (the 20 most frequent values with their counts):\n" + McpJson.standard().write(top)
        + "\n\nSummarize the distribution: dominant values, long tail, NULLs, anything odd. "
        + "If a follow-up needs other columns, use top_values with filters or the query tool.";
    return new GetPromptResult("Rows of " + table.name() + " by " + column.name(),
        List.of(PromptMessage.user(text)), null);
  }

  private interface Body<T> {
    T get();
  }

  private static <T> T guard(Body<T> body) {
    try {
      return body.get();
    } catch (QueryFailedException | QueryRefusedException e) {
      throw McpErrors.invalidParams(e.getMessage());
    }
  }
}
