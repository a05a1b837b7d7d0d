package dev.keel.agent.internal.tools;

import dev.keel.agent.CuratedTool;
import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.Sources;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.Admission;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.agent.internal.sql.StatementTooDeepException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolAnnotations;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolOptions;
import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The operator's curated tools (see {@link CuratedTool}). Each is checked against its source
 * when the agent starts, as if a principal that sees every table had sent it to {@code query},
 * and again on every call with the caller's own view.
 */
public final class CuratedTools {

  private CuratedTools() {}

  /**
   * Registers the tools on {@code server}.
   *
   * @throws IllegalArgumentException naming the tool when its source is unknown, its statement
   *     is refused, or its parameters do not match its {@code ?}s
   */
  public static void register(McpServer.Builder server, Sources sources,
      List<CuratedTool> tools, ToolOptions options) {
    for (CuratedTool tool : tools) {
      AgentCore core = sources.all().stream().filter(c -> c.name().equals(tool.source()))
          .findFirst().orElseThrow(() -> new IllegalArgumentException("tool " + tool.name()
              + ": no source is named " + tool.source()));
      checkAtStart(core, tool);
      server.tool(Tool.builder(tool.name()).description(tool.description())
          .inputSchema(inputSchema(tool)).outputSchema(Schemas.OUT_ROWS)
          .annotations(ToolAnnotations.readOnly()).build(), options,
          Guarded.of(tool.name(), (ctx, args) -> {
            if (!core.admits(ctx)) {
              throw new QueryFailedException(Sources.NO_SOURCE);
            }
            return core;
          }, args -> tool.sql() + " -- " + tool.name() + " " + args,
          (c, ctx, args) -> call(c, tool, ctx, args)));
    }
  }

  private static void checkAtStart(AgentCore core, CuratedTool tool) {
    Set<String> every;
    try {
      every = core.catalog().tables().keySet();
    } catch (SQLException e) {
      throw new IllegalStateException("tool " + tool.name() + ": the catalog of source "
          + core.name() + " could not be read", e);
    }
    int marks;
    try {
      marks = core.check().check(tool.sql(), every, Set.of()).parameters();
    } catch (QueryRefusedException | StatementTooDeepException e) {
      throw new IllegalArgumentException("tool " + tool.name() + ": its statement is refused: "
          + e.getMessage());
    }
    if (marks != tool.parameters().size()) {
      throw new IllegalArgumentException("tool " + tool.name() + ": its statement has " + marks
          + " ? placeholder(s) but " + tool.parameters().size() + " parameter(s) are declared");
    }
  }

  static String inputSchema(CuratedTool tool) {
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    ArrayNode required = JsonNodeFactory.instance.arrayNode();
    for (CuratedTool.Parameter p : tool.parameters()) {
      if (p.claim() != null) {
        continue;
      }
      ObjectNode prop = properties.putObject(p.name());
      prop.put("type", p.type());
      if (p.description() != null) {
        prop.put("description", p.description());
      }
      if (p.defaultValue() != null) {
        prop.set("default", value(p.defaultValue()));
      } else if (p.required()) {
        required.add(p.name());
      }
    }
    if (!required.isEmpty()) {
      schema.set("required", required);
    }
    schema.put("additionalProperties", false);
    return schema.toString();
  }

  private static CallToolResult call(AgentCore core, CuratedTool tool, RequestContext ctx,
      ObjectNode args) {
    List<JsonNode> params = new ArrayList<>();
    for (CuratedTool.Parameter p : tool.parameters()) {
      JsonNode v;
      if (p.claim() != null) {
        Object claim = claim(ctx.principal().claims(), p.claim());
        if (claim == null || claim instanceof Map || claim instanceof List) {
          throw new QueryFailedException("This tool needs the claim " + p.claim()
              + " in your credentials, and they do not carry it");
        }
        v = value(claim);
      } else {
        v = args.get(p.name());
        if (v == null || v.isNull()) {
          v = p.defaultValue() == null ? null : value(p.defaultValue());
        }
        if (v == null && p.required()) {
          throw new QueryFailedException("The parameter " + p.name() + " is required");
        }
        if (v == null) {
          v = JsonNodeFactory.instance.nullNode();
        }
      }
      params.add(typed(p, v));
    }
    try (Admission admission = core.runner().admit(ctx)) {
      VisibleSchema visible = core.visible(ctx);
      AgentCore.Checked checked = core.checked(tool.sql(), visible, params.size());
      return CallToolResult.structured(core.runner().read(admission, ctx, checked.sql(),
          params, core.limits().maxRows(), checked.tables()));
    }
  }

  /** Checks a value against its declared type (a claim is not checked by the input schema). */
  private static JsonNode typed(CuratedTool.Parameter p, JsonNode v) {
    if (v.isNull()) {
      return v;
    }
    boolean ok = switch (p.type()) {
      case "string" -> v.isString();
      case "integer" -> v.isIntegralNumber()
          || v.isNumber() && v.decimalValue().stripTrailingZeros().scale() <= 0;
      case "number" -> v.isNumber();
      default -> v.isBoolean();
    };
    if (!ok) {
      throw new QueryFailedException("The parameter " + p.name() + " must be a " + p.type());
    }
    return v;
  }

  private static Object claim(Map<String, Object> claims, String name) {
    return claims.get(name);
  }

  private static JsonNode value(Object o) {
    JsonNodeFactory f = JsonNodeFactory.instance;
    if (o instanceof String s) {
      return f.stringNode(s);
    }
    if (o instanceof Boolean b) {
      return f.booleanNode(b);
    }
    if (o instanceof Integer || o instanceof Long || o instanceof Short) {
      return f.numberNode(((Number) o).longValue());
    }
    if (o instanceof Number n) {
      return f.numberNode(new BigDecimal(n.toString()));
    }
    return f.stringNode(String.valueOf(o));
  }
}
