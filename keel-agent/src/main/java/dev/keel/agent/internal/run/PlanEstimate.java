package dev.keel.agent.internal.run;

import dev.keel.agent.CostLimits;
import dev.keel.mcp.core.McpJson;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.text.NumberFormat;
import java.util.List;
import java.util.Locale;
import tools.jackson.databind.JsonNode;

/**
 * What the PostgreSQL planner expects of a statement, without running it: the plan of
 * {@code EXPLAIN (FORMAT JSON)}, its total cost and the rows it expects the statement to
 * return. Parameters are bound exactly as the statement itself binds them (strings untyped,
 * the pool's {@code stringtype=unspecified}), so the planner types them as the query will.
 *
 * @param plan the plan: the JSON array EXPLAIN returns
 * @param totalCost the top node's total cost, in the planner's units
 * @param rows the rows the top node is expected to return
 */
public record PlanEstimate(JsonNode plan, double totalCost, double rows) {

  /**
   * Plans {@code sql} (a statement that passed the check and the engine's own reading) with
   * {@code params} bound, on a connection of a read-only transaction.
   */
  public static PlanEstimate of(Connection c, String sql, List<JsonNode> params)
      throws SQLException {
    return of(c, "EXPLAIN (FORMAT JSON) ", sql, params);
  }

  /** Plans {@code sql} with other EXPLAIN options ({@code prefix} ends with a space). */
  public static PlanEstimate of(Connection c, String prefix, String sql, List<JsonNode> params)
      throws SQLException {
    try (PreparedStatement p = c.prepareStatement(prefix + sql)) {
      for (int i = 0; i < params.size(); i++) {
        QueryRunner.bind(p, i + 1, params.get(i));
      }
      try (ResultSet rs = p.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("EXPLAIN returned no plan");
        }
        JsonNode plan = McpJson.standard().parse(rs.getString(1));
        JsonNode top = plan.path(0).path("Plan");
        return new PlanEstimate(plan, top.path("Total Cost").asDouble(0),
            top.path("Plan Rows").asDouble(0));
      }
    }
  }

  /** Returns the top plan node. */
  public JsonNode top() {
    return plan.path(0).path("Plan");
  }

  /**
   * Returns why the statement may not run under {@code limits}, or null when it may: what the
   * planner expects, the limit, and what to narrow.
   */
  public String refusal(CostLimits limits) {
    NumberFormat n = NumberFormat.getIntegerInstance(Locale.ROOT);
    n.setGroupingUsed(true);
    if (rows > limits.maxEstimatedRows()) {
      return "The database estimates this query returns about " + n.format(rows) + " rows "
          + "(the limit is " + n.format(limits.maxEstimatedRows()) + "): add a join condition "
          + "or a WHERE clause, or use LIMIT";
    }
    if (totalCost > limits.maxEstimatedCost()) {
      return "The database estimates this query costs about " + n.format(totalCost) + " (the "
          + "limit is " + n.format(limits.maxEstimatedCost()) + "): add a join condition or a "
          + "WHERE clause on indexed columns, or use LIMIT";
    }
    return null;
  }
}
