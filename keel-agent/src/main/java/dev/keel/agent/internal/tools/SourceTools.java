package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolAnnotations;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** {@code list_sources}: the databases the caller may use, and only those. */
public final class SourceTools {

  static final String OUT_SOURCES = "{\"type\":\"object\",\"properties\":{\"sources\":{"
      + "\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
      + "\"name\":{\"type\":\"string\"},\"database\":{\"type\":\"string\"},"
      + "\"schema\":{\"type\":\"string\"},\"writes\":{\"type\":\"boolean\"}},"
      + "\"required\":[\"name\",\"database\"]}}},\"required\":[\"sources\"]}";

  private SourceTools() {}

  /** Registers the tool on {@code server}. */
  public static void register(McpServer.Builder server, Sources sources, ToolOptions options) {
    server.tool(Tool.builder("list_sources").description("List the databases you may use: "
        + "name (the source argument of every other tool), engine and schema.")
        .inputSchema(Schemas.NO_ARGS).outputSchema(OUT_SOURCES)
        .annotations(ToolAnnotations.readOnly()).build(), options, (ctx, args) -> {
          ObjectNode out = JsonNodeFactory.instance.objectNode();
          ArrayNode list = out.putArray("sources");
          for (AgentCore core : sources.visible(ctx)) {
            ObjectNode o = list.addObject();
            o.put("name", core.name());
            o.put("database", core.db().product());
            o.put("schema", core.db().schema());
            o.put("writes", core.db().allowsWrites());
          }
          return CallToolResult.structured(out);
        });
  }
}
