package dev.keel.agent.internal.analysis;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.Admission;
import dev.keel.agent.internal.run.PlanEstimate;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.mcp.server.RequestContext;
import java.nio.charset.StandardCharsets;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code explain} tool on PostgreSQL: the plan as the structured JSON of {@code EXPLAIN
 * (FORMAT JSON)} rather than lines of text, with the planner's total cost and rows at the top.
 * The statement is checked exactly like a query and read by the engine's own splitter before
 * it is planned; it is never run.
 */
public final class JsonPlan {

  private JsonPlan() {}

  /** Returns true when {@code explain} answers with a JSON plan on this database. */
  public static boolean applies(AgentCore core) {
    return core.db().dialect() == Dialect.POSTGRESQL;
  }

  /**
   * Plans {@code sql} for the caller: {@code format} "json", {@code plan} (the JSON array
   * EXPLAIN returns, or its first characters as text when it is larger than the result limit),
   * {@code totalCost}, {@code estimatedRows} and {@code truncated}.
   */
  public static ObjectNode explain(AgentCore core, VisibleSchema visible, RequestContext ctx,
      String sql, List<JsonNode> params) {
    if (!applies(core)) {
      throw new QueryFailedException("A JSON plan needs PostgreSQL");
    }
    try (Admission admission = core.runner().admit(ctx)) {
      AgentCore.Checked checked = core.checked(sql, visible, params.size());
      PlanEstimate estimate = core.runner().onReadConnection(admission, ctx, c -> {
        core.runner().guard(c, checked.sql(), params.size());
        core.runner().guard(c, "EXPLAIN (FORMAT JSON) " + checked.sql(), params.size());
        return PlanEstimate.of(c, checked.sql(), params);
      });
      ObjectNode out = JsonNodeFactory.instance.objectNode();
      out.put("format", "json");
      String text = estimate.plan().toString();
      long limit = core.limits().maxResultBytes();
      boolean cut = text.getBytes(StandardCharsets.UTF_8).length > limit;
      if (cut) {
        out.put("plan", text.substring(0, (int) Math.min(text.length(), limit / 2)));
      } else {
        out.set("plan", estimate.plan());
      }
      out.put("totalCost", estimate.totalCost());
      out.put("estimatedRows", estimate.rows());
      out.put("truncated", cut);
      return out;
    }
  }
}
