package dev.keel.agent.internal.features;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.tools.ReadTools;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The agent's resources: {@code db://tables} (the tables the caller may see) and, per table,
 * its schema, row count and a sample through URI templates. Templates rather than one resource
 * per table, because a resource list is the same for every caller and would name tables some
 * callers may not see. A hidden or unknown table is "not found or not allowed", with no URI
 * echoed.
 */
public final class TableResources {

  /** The URI of the table list. */
  public static final String TABLES = "db://tables";
  /** The template of a table's schema. */
  public static final String SCHEMA = "db://tables/{table}/schema";
  /** The template of a table's row count. */
  public static final String COUNT = "db://tables/{table}/count";
  /** The template of a table's sample rows. */
  public static final String SAMPLE = "db://tables/{table}/sample";

  private static final String JSON = "application/json";
  static final int SAMPLE_ROWS = 10;

  private TableResources() {}

  /** Registers the resources on {@code server}. */
  public static void register(McpServer.Builder server, AgentCore core, ReadTools reads) {
    server.resource(Resource.of(TABLES, "tables", "The tables and views you may query", JSON),
        (ctx, uri) -> {
          ObjectNode out = JsonNodeFactory.instance.objectNode();
          out.put("database", core.db().product());
          out.put("schema", core.db().schema());
          out.set("tables", core.tableList(visible(core, ctx)));
          return json(uri, out);
        });
    server.resourceTemplate(ResourceTemplate.of(SCHEMA, "table-schema",
        "A table's columns, keys and indexes", JSON), (ctx, uri, vars) -> {
          VisibleSchema visible = visible(core, ctx);
          return json(uri, guard(() -> core.describe(visible, table(visible, vars.get("table")))));
        });
    server.resourceTemplate(ResourceTemplate.of(COUNT, "table-count", "A table's row count",
        JSON), (ctx, uri, vars) -> {
          VisibleSchema visible = visible(core, ctx);
          TableInfo table = table(visible, vars.get("table"));
          ObjectNode out = JsonNodeFactory.instance.objectNode();
          out.put("table", table.name());
          out.put("count", guard(() -> reads.countRows(ctx, table, null)));
          return json(uri, out);
        });
    server.resourceTemplate(ResourceTemplate.of(SAMPLE, "table-sample",
        "The first " + SAMPLE_ROWS + " rows of a table", JSON), (ctx, uri, vars) -> {
          VisibleSchema visible = visible(core, ctx);
          TableInfo table = table(visible, vars.get("table"));
          return json(uri, guard(() -> reads.sampleRows(ctx, table, table.columns(), null,
              SAMPLE_ROWS)));
        });
  }

  private static VisibleSchema visible(AgentCore core, RequestContext ctx) {
    return guard(() -> core.visible(ctx));
  }

  private static TableInfo table(VisibleSchema visible, String name) {
    return visible.table(name).orElseThrow(TableResources::notFound);
  }

  /** The one answer for a resource of a hidden or unknown table. */
  static McpException notFound() {
    return new McpException(ErrorCodes.RESOURCE_NOT_FOUND, "Resource not found or not allowed");
  }

  private interface Body<T> {
    T get();
  }

  private static <T> T guard(Body<T> body) {
    try {
      return body.get();
    } catch (QueryFailedException e) {
      throw new McpException(ErrorCodes.INTERNAL_ERROR, e.getMessage());
    }
  }

  private static ReadResourceResult json(String uri, JsonNode value) {
    return ReadResourceResult.of(ResourceContents.text(uri, JSON,
        McpJson.standard().write(value)));
  }
}
