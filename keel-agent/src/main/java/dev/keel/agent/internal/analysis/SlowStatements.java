package dev.keel.agent.internal.analysis;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.Admission;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.mcp.server.RequestContext;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code slow_statements} tool: the statements of this database that took longest, from
 * {@code pg_stat_statements}. Their texts are other sessions' SQL and may name any table, so
 * they are shown only to a principal that may see every table; everyone else is refused.
 */
public final class SlowStatements {

  /** The refusal for a principal that does not see everything. */
  public static final String NOT_FOR_YOU = "The slowest statements are shown only to a "
      + "principal that may see every table: their texts can name tables you may not see";

  /** The answer when the extension is missing or not loaded. */
  public static final String NEEDS_EXTENSION = "Slow statements need the pg_stat_statements "
      + "extension (shared_preload_libraries = 'pg_stat_statements', then CREATE EXTENSION "
      + "pg_stat_statements)";

  private SlowStatements() {}

  /**
   * Lists up to {@code limit} statements ordered by {@code orderBy} ({@code "total"} or
   * {@code "mean"} execution time): text (cut at the value limit), calls, total, mean and
   * maximum milliseconds, rows, and the share of blocks found in the cache.
   */
  public static ObjectNode list(AgentCore core, VisibleSchema visible, RequestContext ctx,
      int limit, String orderBy) {
    if (core.db().dialect() != Dialect.POSTGRESQL) {
      throw new QueryFailedException("Slow statements need PostgreSQL with the "
          + "pg_stat_statements extension; this database is " + core.db().product());
    }
    if (!core.policy().allowsAll() && !core.policy().accessFor(ctx.principal().id())
        .everything()) {
      throw new QueryFailedException(NOT_FOR_YOU);
    }
    int rows = Math.max(1, Math.min(limit, 50));
    String order = "mean".equals(orderBy) ? "mean_exec_time" : "total_exec_time";
    int maxChars = core.limits().maxCellChars();
    try (Admission admission = core.runner().admit(ctx)) {
      return core.runner().onReadConnection(admission, ctx, c -> {
        String schema = Extensions.schema(c, "pg_stat_statements");
        if (schema == null) {
          throw new QueryFailedException(NEEDS_EXTENSION);
        }
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        ArrayNode list = out.putArray("statements");
        // texts cut on the server: other roles' statements can be of any length, and the
        // driver holds a whole fetch of them at once
        try (PreparedStatement p = c.prepareStatement("SELECT left(query, " + (maxChars + 1)
            + "), calls, total_exec_time, mean_exec_time, max_exec_time, rows, shared_blks_hit, "
            + "shared_blks_read, char_length(query) FROM "
            + schema + ".pg_stat_statements WHERE dbid = (SELECT oid FROM pg_catalog.pg_database "
            + "WHERE datname = current_database()) ORDER BY " + order + " DESC LIMIT ?")) {
          p.setInt(1, rows);
          try (ResultSet rs = p.executeQuery()) {
            while (rs.next()) {
              ObjectNode s = list.addObject();
              String text = rs.getString(1);
              long length = rs.getLong(9);
              if (text != null && length > maxChars) {
                text = text.substring(0, Math.min(maxChars, text.length())) + "...[cut: "
                    + (length - maxChars) + " more characters]";
              }
              s.put("query", text);
              s.put("calls", rs.getLong(2));
              s.put("totalMillis", round(rs.getDouble(3)));
              s.put("meanMillis", round(rs.getDouble(4)));
              s.put("maxMillis", round(rs.getDouble(5)));
              s.put("rows", rs.getLong(6));
              long hit = rs.getLong(7);
              long read = rs.getLong(8);
              if (hit + read > 0) {
                s.put("cacheHitRatio", round((double) hit / (hit + read)));
              } else {
                s.putNull("cacheHitRatio");
              }
            }
          }
        } catch (SQLException e) {
          // 55000: the extension exists but the library was not preloaded
          if ("55000".equals(e.getSQLState())) {
            throw new QueryFailedException(NEEDS_EXTENSION);
          }
          throw e;
        }
        out.put("orderedBy", "mean".equals(orderBy) ? "mean" : "total");
        return out;
      });
    }
  }

  static double round(double value) {
    return Math.round(value * 1000) / 1000.0;
  }
}
