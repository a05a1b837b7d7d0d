package dev.keel.agent.internal.run;

import dev.keel.agent.CostLimits;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.text.NumberFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The MySQL or MariaDB optimizer's own estimate of the rows a checked statement reads, for
 * admission control: {@code EXPLAIN} of the statement (prepared on the server with the same
 * parameters), its {@code rows} multiplied over the tables joined in each {@code SELECT} (and
 * by {@code filtered} where MySQL reports it), summed over the {@code SELECT}s of subqueries and
 * unions. Plain {@code EXPLAIN} rather than {@code FORMAT=JSON}: both servers give it the same
 * shape, and the product is what a nested-loop join reads.
 */
public final class MySqlEstimate {

  /**
   * An estimate.
   *
   * @param rows the rows the optimizer expects to read (at most {@link Long#MAX_VALUE})
   * @param tables the tables of the plan, in its order (derived tables under their plan
   *     names, such as {@code <derived2>})
   */
  public record Estimate(long rows, List<String> tables) {

    /**
     * Returns why the statement may not run under {@code limits}, or null when it may. MySQL
     * estimates the rows a statement reads, not the rows it returns, and gives no cost that
     * compares across statements, so only {@link CostLimits#maxEstimatedRows()} applies.
     */
    public String refusal(CostLimits limits) {
      if (rows <= limits.maxEstimatedRows()) {
        return null;
      }
      NumberFormat n = NumberFormat.getIntegerInstance(Locale.ROOT);
      n.setGroupingUsed(true);
      return "The database estimates this query reads about " + n.format(rows) + " rows (the "
          + "limit is " + n.format(limits.maxEstimatedRows()) + "): add a join condition or a "
          + "WHERE clause on indexed columns, or use LIMIT";
    }
  }

  private MySqlEstimate() {}

  /**
   * Returns the optimizer's estimate for {@code sql} (a statement that passed the check) with
   * {@code params} bound, on a read connection of the agent.
   *
   * @throws SQLException when the server cannot explain it
   */
  public static Estimate of(Connection c, String sql, List<JsonNode> params)
      throws SQLException {
    Map<String, Double> bySelect = new LinkedHashMap<>();
    List<String> tables = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql)) {
      for (int i = 0; i < params.size(); i++) {
        QueryRunner.bind(p, i + 1, params.get(i));
      }
      try (ResultSet rs = p.executeQuery()) {
        ResultSetMetaData meta = rs.getMetaData();
        boolean filtered = false;
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          filtered |= meta.getColumnLabel(i).equalsIgnoreCase("filtered");
        }
        while (rs.next()) {
          String id = String.valueOf(rs.getString("id"));
          long rows = rs.getLong("rows");
          if (rs.wasNull()) {
            // no table read here ("No tables used", a UNION's result)
            continue;
          }
          String table = rs.getString("table");
          if (table != null) {
            tables.add(table);
          }
          double factor = Math.max(1, rows);
          if (filtered) {
            double percent = rs.getDouble("filtered");
            if (!rs.wasNull() && percent > 0 && percent < 100 && bySelect.containsKey(id)) {
              // MySQL's filtered says how many of a table's rows go on to the next join step
              factor = Math.max(1, factor * percent / 100);
            }
          }
          bySelect.merge(id, factor, (a, b) -> a * b);
        }
      }
    } finally {
      c.rollback();
    }
    double total = 0;
    for (double v : bySelect.values()) {
      total += v;
    }
    long rows = total >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) total;
    return new Estimate(rows, List.copyOf(tables));
  }
}
