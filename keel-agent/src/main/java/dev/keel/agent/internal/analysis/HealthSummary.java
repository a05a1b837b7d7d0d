package dev.keel.agent.internal.analysis;

import dev.keel.agent.internal.AgentCore;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.db.TableInfo;
import dev.keel.agent.internal.db.VisibleSchema;
import dev.keel.agent.internal.run.Admission;
import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.mcp.server.RequestContext;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The {@code health} tool: what PostgreSQL's statistics say about the tables the caller may
 * see, and nothing about any other: the share of blocks read from the cache, dead rows (a bloat
 * estimate), indexes never scanned and invalid ones (only those whose columns the caller sees),
 * and transactions open longer than a threshold, by age and state only, never their text.
 */
public final class HealthSummary {

  /** The most entries each list carries. */
  static final int MAX_ENTRIES = 50;

  private HealthSummary() {}

  /**
   * Summarises the health of the caller's tables; transactions open at least
   * {@code longTransactionSeconds} are listed.
   */
  public static ObjectNode of(AgentCore core, VisibleSchema visible, RequestContext ctx,
      int longTransactionSeconds) {
    if (core.db().dialect() != Dialect.POSTGRESQL) {
      throw new QueryFailedException("Health checks need PostgreSQL's statistics views; this "
          + "database is " + core.db().product());
    }
    String[] tables = visible.names().toArray(String[]::new);
    try (Admission admission = core.runner().admit(ctx)) {
      return core.runner().onReadConnection(admission, ctx, c -> {
        ObjectNode out = JsonNodeFactory.instance.objectNode();
        cache(c, core.db().schema(), tables, out);
        deadRows(c, core.db().schema(), tables, out.putArray("deadRows"));
        indexes(c, core.db().schema(), visible, tables, out);
        transactions(c, longTransactionSeconds, out.putArray("longTransactions"));
        return out;
      });
    }
  }

  private static void cache(Connection c, String schema, String[] tables, ObjectNode out)
      throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT sum(heap_blks_hit), "
        + "sum(heap_blks_read), sum(coalesce(idx_blks_hit, 0)), sum(coalesce(idx_blks_read, 0)) "
        + "FROM pg_catalog.pg_statio_user_tables WHERE schemaname = ? AND relname = ANY(?)")) {
      p.setString(1, schema);
      p.setArray(2, c.createArrayOf("text", tables));
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        ratio(out, "tableCacheHitRatio", rs.getLong(1), rs.getLong(2));
        ratio(out, "indexCacheHitRatio", rs.getLong(3), rs.getLong(4));
      }
    }
  }

  private static void ratio(ObjectNode out, String name, long hit, long read) {
    if (hit + read == 0) {
      out.putNull(name);
    } else {
      out.put(name, SlowStatements.round((double) hit / (hit + read)));
    }
  }

  private static void deadRows(Connection c, String schema, String[] tables, ArrayNode out)
      throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT relname, n_live_tup, n_dead_tup, "
        + "greatest(last_vacuum, last_autovacuum) FROM pg_catalog.pg_stat_user_tables "
        + "WHERE schemaname = ? AND relname = ANY(?) AND n_dead_tup > 0 "
        + "ORDER BY n_dead_tup::float8 / (n_live_tup + n_dead_tup) DESC, relname LIMIT "
        + MAX_ENTRIES)) {
      p.setString(1, schema);
      p.setArray(2, c.createArrayOf("text", tables));
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          ObjectNode t = out.addObject();
          long live = rs.getLong(2);
          long dead = rs.getLong(3);
          t.put("table", rs.getString(1));
          t.put("liveRows", live);
          t.put("deadRows", dead);
          t.put("deadRatio", SlowStatements.round((double) dead / (live + dead)));
          t.put("lastVacuum", rs.getString(4));
        }
      }
    }
  }

  private static void indexes(Connection c, String schema, VisibleSchema visible,
      String[] tables, ObjectNode out) throws SQLException {
    ArrayNode unused = out.putArray("unusedIndexes");
    ArrayNode invalid = out.putArray("invalidIndexes");
    // indkey holds 0 for an expression column: such an index is shown only on a table whose
    // columns are all visible
    try (PreparedStatement p = c.prepareStatement("SELECT t.relname, i.relname, "
        + "coalesce(s.idx_scan, 0), x.indisvalid, x.indisunique OR x.indisprimary, "
        + "pg_catalog.pg_relation_size(i.oid), "
        + "ARRAY(SELECT a.attname FROM unnest(x.indkey::int2[]) WITH ORDINALITY k(attnum, n) "
        + "LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum "
        + "ORDER BY k.n), 0 = ANY(x.indkey::int2[]) OR x.indexprs IS NOT NULL "
        + "OR x.indpred IS NOT NULL "
        + "FROM pg_catalog.pg_index x JOIN pg_catalog.pg_class i ON i.oid = x.indexrelid "
        + "JOIN pg_catalog.pg_class t ON t.oid = x.indrelid "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = t.relnamespace "
        + "LEFT JOIN pg_catalog.pg_stat_user_indexes s ON s.indexrelid = x.indexrelid "
        + "WHERE n.nspname = ? AND t.relname = ANY(?) ORDER BY t.relname, i.relname")) {
      p.setString(1, schema);
      p.setArray(2, c.createArrayOf("text", tables));
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          String table = rs.getString(1);
          TableInfo info = visible.table(table).orElse(null);
          Array array = rs.getArray(7);
          Object[] names = (Object[]) array.getArray();
          boolean expressions = rs.getBoolean(8);
          if (info == null || visible.isRestricted(table) && (expressions
              || !info.columnNames().containsAll(java.util.Arrays.stream(names)
                  .map(String::valueOf).toList()))) {
            continue;
          }
          boolean valid = rs.getBoolean(4);
          long scans = rs.getLong(3);
          boolean constraint = rs.getBoolean(5);
          ArrayNode target = !valid ? invalid : scans == 0 && !constraint ? unused : null;
          if (target == null || target.size() >= MAX_ENTRIES) {
            continue;
          }
          ObjectNode o = target.addObject();
          o.put("table", table);
          o.put("index", rs.getString(2));
          ArrayNode cols = o.putArray("columns");
          for (Object name : names) {
            if (name == null) {
              cols.addNull();
            } else {
              cols.add(String.valueOf(name));
            }
          }
          o.put("scans", scans);
          o.put("bytes", rs.getLong(6));
        }
      }
    }
  }

  private static void transactions(Connection c, int seconds, ArrayNode out)
      throws SQLException {
    // this database's sessions only, and never their query text: it may name hidden tables
    try (PreparedStatement p = c.prepareStatement("SELECT state, "
        + "extract(epoch FROM now() - xact_start), wait_event_type "
        + "FROM pg_catalog.pg_stat_activity WHERE datname = current_database() "
        + "AND xact_start IS NOT NULL AND pid <> pg_catalog.pg_backend_pid() "
        + "AND now() - xact_start >= make_interval(secs => ?) ORDER BY xact_start LIMIT "
        + MAX_ENTRIES)) {
      p.setInt(1, Math.max(0, seconds));
      try (ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          ObjectNode t = out.addObject();
          t.put("state", rs.getString(1));
          t.put("ageSeconds", SlowStatements.round(rs.getDouble(2)));
          t.put("waiting", rs.getString(3) != null && !"Client".equals(rs.getString(3))
              && !"Activity".equals(rs.getString(3)));
        }
      }
    }
  }

}
