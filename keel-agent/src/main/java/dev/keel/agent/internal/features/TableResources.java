package dev.keel.agent.internal.features;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.audit.Audited;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.agent.internal.tools.ReadTools;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ResourceTemplateHandler;
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

  /** The template of one source's table list. */
  public static final String SOURCE_TABLES = "db://{source}/tables";
  /** The template of a table's schema in a named source. */
  public static final String SOURCE_SCHEMA = "db://{source}/tables/{table}/schema";
  /** The template of a table's row count in a named source. */
  public static final String SOURCE_COUNT = "db://{source}/tables/{table}/count";
  /** The template of a table's sample rows in a named source. */
  public static final String SOURCE_SAMPLE = "db://{source}/tables/{table}/sample";

  /**
   * Registers the resources on {@code server}: {@code db://tables/...} read the caller's first
   * source, {@code db://{source}/tables/...} the one named.
   */
  public static void register(McpServer.Builder server, Sources sources) {
    server.resource(Resource.of(TABLES, "tables", "The tables and views you may query", JSON),
        (ctx, uri) -> audited(source(sources, ctx, null), ctx, uri,
            core -> tables(core, ctx, uri)));
    server.resourceTemplate(ResourceTemplate.of(SOURCE_TABLES, "source-tables",
        "The tables and views you may query in one source", JSON),
        (ctx, uri, vars) -> audited(source(sources, ctx, vars.get("source")), ctx, uri,
            core -> tables(core, ctx, uri)));
    String[][] forms = {{SCHEMA, SOURCE_SCHEMA}, {COUNT, SOURCE_COUNT}, {SAMPLE, SOURCE_SAMPLE}};
    for (String[] form : forms) {
      for (int named = 0; named < 2; named++) {
        String template = form[named];
        boolean bySource = named == 1;
        String kind = template.substring(template.lastIndexOf('/') + 1);
        ResourceTemplateHandler handler = (ctx, uri, vars) -> audited(source(sources, ctx,
            bySource ? vars.get("source") : null), ctx, uri,
            core -> read(kind, core, ctx, uri, vars.get("table")));
        server.resourceTemplate(ResourceTemplate.of(template, (bySource ? "source-" : "")
            + "table-" + kind, describe(kind), JSON), handler);
      }
    }
  }

  private static String describe(String kind) {
    return switch (kind) {
      case "schema" -> "A table's columns, keys and indexes";
      case "count" -> "A table's row count";
      default -> "The first " + SAMPLE_ROWS + " rows of a table";
    };
  }

  /** A named source the caller may use, or the caller's first; else "not found". */
  private static AgentCore source(Sources sources, RequestContext ctx, String name) {
    if (name != null && name.isEmpty()) {
      throw notFound();
    }
    try {
      return sources.pick(ctx, name);
    } catch (QueryFailedException e) {
      throw notFound();
    }
  }

  /** Reads a resource with the read on record (the URI stands for the statement). */
  private static ReadResourceResult audited(AgentCore core, RequestContext ctx, String uri,
      java.util.function.Function<AgentCore, ReadResourceResult> read) {
    return Audited.run(core.audit(), core.name(), ctx, "resources/read", uri,
        () -> read.apply(core));
  }

  private static ReadResourceResult tables(AgentCore core, RequestContext ctx, String uri) {
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    out.put("source", core.name());
    out.put("database", core.db().product());
    out.put("schema", core.db().schema());
    out.set("tables", core.tableList(visible(core, ctx)));
    return json(uri, out);
  }

  private static ReadResourceResult read(String kind, AgentCore core, RequestContext ctx,
      String uri, String name) {
    VisibleSchema visible = visible(core, ctx);
    TableInfo table = table(visible, name);
    ReadTools reads = ReadTools.of(core);
    return switch (kind) {
      case "schema" -> json(uri, guard(() -> core.describe(visible, table)));
      case "count" -> {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        out.put("table", table.name());
        out.put("count", guard(() -> reads.countRows(ctx, table, null)));
        yield json(uri, out);
      }
      default -> json(uri, guard(() -> reads.sampleRows(ctx, table, table.columns(), null,
          SAMPLE_ROWS)));
    };
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
    } catch (QueryFailedException | QueryRefusedException e) {
      throw new McpException(ErrorCodes.INTERNAL_ERROR, e.getMessage());
    }
  }

  private static ReadResourceResult json(String uri, JsonNode value) {
    return ReadResourceResult.of(ResourceContents.text(uri, JSON,
        McpJson.standard().write(value)));
  }
}
