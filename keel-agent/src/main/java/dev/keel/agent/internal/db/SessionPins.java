package dev.keel.agent.internal.db;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.jdbc.PreferQueryMode;

/**
 * What every pooled connection is pinned to for its whole session, set where a statement cannot
 * undo it, and checked rather than assumed:
 * <ul>
 *   <li>PostgreSQL: read-only by default ({@code default_transaction_read_only}, so a smuggled
 *       {@code COMMIT} only starts another read-only transaction), the exposed schema first on
 *       the search path with {@code pg_temp} last (a temporary table can shadow nothing),
 *       {@code standard_conforming_strings} on (the lexer reads strings that way), all given as
 *       start-up options, which {@code DISCARD ALL} restores rather than clears; the driver in
 *       extended-protocol mode (one Parse per statement, so the server refuses a second
 *       statement) and without named server-side statements ({@code DISCARD ALL} drops them);</li>
 *   <li>MySQL and MariaDB: see {@link MySqlPins};</li>
 *   <li>H2: the schema and its search path, set when the connection is made and checked again
 *       whenever it goes back to the pool;</li>
 *   <li>SQLite: see {@link SqlitePins}.</li>
 * </ul>
 */
final class SessionPins {

  private SessionPins() {}

  /** The search path the agent pins on PostgreSQL: its schema, the catalog, temporaries last. */
  static String searchPath(String schema) {
    return quote(schema) + ", pg_catalog, pg_temp";
  }

  static String quote(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** Adds the pins to a pool's configuration. */
  static void apply(HikariConfig config, Dialect dialect, String schema, boolean readOnly) {
    if (dialect == Dialect.POSTGRESQL) {
      StringBuilder options = new StringBuilder();
      // in the options too: a plain start-up parameter does not survive DISCARD ALL
      options.append("-c application_name=").append(escapeOption(config.getPoolName()))
          .append(' ');
      options.append("-c search_path=").append(escapeOption(searchPath(schema)));
      options.append(" -c standard_conforming_strings=on");
      if (readOnly) {
        options.append(" -c default_transaction_read_only=on");
      }
      config.addDataSourceProperty("options", options.toString());
      config.addDataSourceProperty("preferQueryMode", "extended");
      config.addDataSourceProperty("prepareThreshold", "0");
    } else if (dialect == Dialect.MYSQL) {
      MySqlPins.apply(config, schema, readOnly);
    } else if (dialect == Dialect.SQLITE) {
      SqlitePins.apply(config, readOnly);
    } else if (dialect == Dialect.H2) {
      config.setConnectionInitSql("SET SCHEMA " + quote(schema) + "; SET SCHEMA_SEARCH_PATH "
          + quote(schema));
    }
  }

  /** The backend splits {@code options} on spaces; a backslash escapes one. */
  private static String escapeOption(String value) {
    return value.replace("\\", "\\\\").replace(" ", "\\ ");
  }

  /**
   * Returns what is wrong with a read connection's pins, or an empty list. A URL that overrides
   * the start-up options or the query mode shows up here.
   */
  static List<String> problems(Connection c, Dialect dialect, String schema, boolean readOnly)
      throws SQLException {
    if (dialect == Dialect.MYSQL) {
      return MySqlPins.problems(c, schema, readOnly);
    }
    List<String> problems = new ArrayList<>();
    if (dialect == Dialect.POSTGRESQL) {
      PGConnection pg = c.unwrap(PGConnection.class);
      if (pg.getPreferQueryMode() != PreferQueryMode.EXTENDED) {
        problems.add("the driver's preferQueryMode is " + pg.getPreferQueryMode()
            + ", not extended (remove it from the JDBC URL)");
      }
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT "
          + "current_setting('default_transaction_read_only'), current_schema(), "
          + "current_setting('standard_conforming_strings'), "
          + "(current_schemas(true))[array_upper(current_schemas(true), 1)]")) {
        rs.next();
        if (readOnly && !"on".equals(rs.getString(1))) {
          problems.add("default_transaction_read_only is " + rs.getString(1) + ", not on");
        }
        if (!schema.equals(rs.getString(2))) {
          problems.add("the current schema is " + rs.getString(2) + ", not " + schema);
        }
        if (!"on".equals(rs.getString(3))) {
          problems.add("standard_conforming_strings is " + rs.getString(3) + ", not on");
        }
      }
      c.rollback();
    } else if (dialect == Dialect.H2) {
      try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT "
          + "SETTING_NAME, SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME "
          + "IN ('MODE', 'CASE_INSENSITIVE_IDENTIFIERS')")) {
        while (rs.next()) {
          String name = rs.getString(1);
          String value = rs.getString(2);
          if (name.equals("MODE") && !value.equalsIgnoreCase("REGULAR")) {
            problems.add("the H2 compatibility mode is " + value + "; the agent reads SQL as "
                + "H2's REGULAR mode does (remove MODE from the JDBC URL)");
          }
          if (name.equals("CASE_INSENSITIVE_IDENTIFIERS") && value.equalsIgnoreCase("true")) {
            problems.add("CASE_INSENSITIVE_IDENTIFIERS is on; the agent matches names as H2 "
                + "does by default (remove it from the JDBC URL)");
          }
        }
      }
      if (!h2StateIsClean(c, schema)) {
        problems.add("the session does not start in schema " + schema);
      }
      c.rollback();
    } else if (dialect == Dialect.SQLITE) {
      problems.addAll(SqlitePins.problems(c, readOnly));
      c.rollback();
    }
    return problems;
  }

  /**
   * Returns true when an H2 session holds nothing but the pinned schema and search path: no
   * variables, no local temporary tables, no other setting a statement changed.
   */
  static boolean h2StateIsClean(Connection c, String schema) throws SQLException {
    try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
        "SELECT STATE_KEY, STATE_COMMAND FROM INFORMATION_SCHEMA.SESSION_STATE")) {
      boolean schemaSet = false;
      while (rs.next()) {
        String key = rs.getString(1);
        String command = rs.getString(2);
        if (key.equals("SCHEMA") && command.equals("SET SCHEMA " + quote(schema))) {
          schemaSet = true;
        } else if (!(key.equals("SCHEMA_SEARCH_PATH")
            && command.equals("SET SCHEMA_SEARCH_PATH " + quote(schema)))) {
          return false;
        }
      }
      return schemaSet;
    }
  }

  /**
   * Resets a read connection before it goes back to the pool; returns false when it could not
   * be made clean (then it must be evicted, never reused). The transaction is already over.
   */
  static boolean reset(Connection c, Dialect dialect, String schema) {
    try {
      if (dialect == Dialect.POSTGRESQL) {
        // DISCARD ALL: temporary tables, prepared statements, cursors, advisory locks,
        // listeners, sequence caches and every SET go; the start-up pins come back.
        c.setAutoCommit(true);
        try (Statement s = c.createStatement()) {
          s.execute("DISCARD ALL");
        }
        c.setAutoCommit(false);
        return true;
      }
      if (dialect == Dialect.MYSQL) {
        return MySqlPins.reset(c, schema);
      }
      if (dialect == Dialect.H2) {
        boolean clean = h2StateIsClean(c, schema);
        c.rollback();
        return clean;
      }
      if (dialect == Dialect.SQLITE) {
        return SqlitePins.clean(c);
      }
      return true;
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }
}
