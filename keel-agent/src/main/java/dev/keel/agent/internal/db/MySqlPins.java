package dev.keel.agent.internal.db;

import com.zaxxer.hikari.HikariConfig;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a MySQL or MariaDB connection is pinned to, for either driver ({@code jdbc:mariadb:},
 * {@code jdbc:mysql:}), and how that is checked:
 * <ul>
 *   <li>the session {@code sql_mode} is exactly {@link #SQL_MODE}, the mode the agent's lexer
 *       reads text in ({@code ANSI_QUOTES}: {@code "x"} is a name; {@code NO_BACKSLASH_ESCAPES}:
 *       a backslash in a string is itself);</li>
 *   <li>read connections are read-only for the whole session ({@code tx_read_only}, or
 *       {@code transaction_read_only} where the server has it) and never auto-commit, so every
 *       statement runs in a read-only transaction that the agent rolls back;</li>
 *   <li>the default database is the exposed one, and the driver calls it the schema
 *       ({@code useCatalogTerm=SCHEMA}, {@code databaseTerm=SCHEMA}) so the catalog's metadata
 *       calls find it where they look;</li>
 *   <li>statements are prepared on the server ({@code useServerPrepStmts}), which prepares one
 *       statement or none, and the connection refuses a second statement in one text
 *       (checked, not assumed: a URL with {@code allowMultiQueries=true} is refused).</li>
 * </ul>
 * A connection going back to the pool has its server session reset (temporary tables, user
 * variables, every {@code SET} go), is pinned again and checked; one that fails is evicted.
 */
final class MySqlPins {

  /** The session {@code sql_mode} the agent's MySQL lexer reads text for. */
  static final String SQL_MODE = "ANSI_QUOTES,NO_BACKSLASH_ESCAPES,PIPES_AS_CONCAT,"
      + "STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,ERROR_FOR_DIVISION_BY_ZERO";

  private MySqlPins() {}

  /** Returns true when the URL is served by MariaDB's driver rather than MySQL's. */
  static boolean mariadbDriver(String url) {
    return url.toLowerCase(Locale.ROOT).startsWith("jdbc:mariadb:");
  }

  /**
   * Returns the name of the session's read-only variable on this server:
   * {@code transaction_read_only} (MySQL 5.7.20 and later, MariaDB 11.1 and later) or
   * {@code tx_read_only} (older MariaDB, which has no other).
   */
  static String readOnlyVariable(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT @@session.transaction_read_only")) {
        return "transaction_read_only";
      } catch (SQLException e) {
        return "tx_read_only";
      }
    }
  }

  /** The statement that pins a new connection's session. */
  static String initSql(String readOnlyVariable, boolean readOnly) {
    return "SET SESSION sql_mode = '" + SQL_MODE + "'"
        + (readOnly ? ", SESSION " + readOnlyVariable + " = 1" : "");
  }

  /** Adds the pins to a pool's configuration. */
  static void apply(HikariConfig config, String schema, boolean readOnly) {
    String readOnlyVariable;
    try (Connection c = JdbcDrivers.connect(config.getJdbcUrl(), config.getUsername(),
        config.getPassword())) {
      readOnlyVariable = readOnlyVariable(c);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot connect to read the server's settings: "
          + e.getMessage(), e);
    }
    config.setConnectionInitSql(initSql(readOnlyVariable, readOnly));
    config.addDataSourceProperty("useServerPrepStmts", "true");
    config.addDataSourceProperty("allowMultiQueries", "false");
    if (mariadbDriver(config.getJdbcUrl())) {
      config.addDataSourceProperty("useCatalogTerm", "SCHEMA");
      // without it the driver's reset() restores only what the driver itself set
      config.addDataSourceProperty("useResetConnection", "true");
    } else {
      config.addDataSourceProperty("databaseTerm", "SCHEMA");
      config.addDataSourceProperty("readOnlyPropagatesToServer", "true");
      // table comments come only from information_schema (SHOW FULL TABLES has none)
      config.addDataSourceProperty("useInformationSchema", "true");
    }
    config.setSchema(schema);
    // the pins are a session's whole state: a reset (on return to the pool) clears them, and
    // the pool must not believe the driver still holds them
    config.setReadOnly(readOnly);
  }

  /** Returns what is wrong with a connection's pins, or an empty list. */
  static List<String> problems(Connection c, String schema, boolean readOnly)
      throws SQLException {
    List<String> problems = new ArrayList<>();
    try (Statement s = c.createStatement()) {
      try (ResultSet rs = s.executeQuery("SELECT @@session.sql_mode, DATABASE(), "
          + "@@session.autocommit")) {
        rs.next();
        Set<String> modes = modes(rs.getString(1));
        if (!modes.equals(modes(SQL_MODE))) {
          problems.add("the session sql_mode is '" + rs.getString(1) + "', not '" + SQL_MODE
              + "' (remove sql_mode from the JDBC URL's session variables)");
        }
        if (!schema.equals(rs.getString(2))) {
          problems.add("the current database is " + rs.getString(2) + ", not " + schema);
        }
        if (rs.getLong(3) != 0) {
          problems.add("the session auto-commits");
        }
      }
      if (readOnly) {
        String value = readOnlyValue(s);
        if (!"1".equals(value)) {
          problems.add("the session is not read-only (tx_read_only is " + value + ")");
        }
      }
      if (!schema.equals(c.getSchema())) {
        problems.add("the driver does not report the database as the schema (remove "
            + "useCatalogTerm or databaseTerm from the JDBC URL)");
      }
      boolean second;
      try {
        s.execute("SELECT 1; SELECT 2");
        second = true;
      } catch (SQLException refused) {
        second = false;
      }
      if (second) {
        problems.add("the connection runs several statements in one text (remove "
            + "allowMultiQueries from the JDBC URL)");
      }
    } finally {
      c.rollback();
    }
    return problems;
  }

  private static String readOnlyValue(Statement s) throws SQLException {
    for (String name : List.of("transaction_read_only", "tx_read_only")) {
      try (ResultSet rs = s.executeQuery("SELECT @@session." + name)) {
        rs.next();
        return rs.getString(1);
      } catch (SQLException e) {
        // the server lacks this name; try the other
      }
    }
    return "unknown";
  }

  private static Set<String> modes(String value) {
    Set<String> modes = new TreeSet<>();
    if (value != null) {
      for (String m : value.split(",")) {
        if (!m.isBlank()) {
          modes.add(m.strip().toUpperCase(Locale.ROOT));
        }
      }
    }
    return modes;
  }

  /**
   * Resets a connection's server session before it goes back to the pool, pins it again and
   * checks it; returns false when it could not be made clean.
   */
  static boolean reset(Connection c, String schema) {
    try {
      // the pool's read connections are read-only in the driver too (HikariConfig.setReadOnly)
      boolean readOnly = c.isReadOnly();
      c.rollback();
      if (c.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
        // COM_RESET_CONNECTION: temporary tables, user variables and session settings go
        org.mariadb.jdbc.Connection driver = c.unwrap(org.mariadb.jdbc.Connection.class);
        driver.reset();
        // the driver forgets that it was read-only, and the next reset asks it
        driver.setReadOnly(readOnly);
      } else {
        // COM_CHANGE_USER, which clears the same
        c.unwrap(com.mysql.cj.jdbc.JdbcConnection.class).resetServerState();
      }
      String readOnlyVariable = readOnlyVariable(c);
      try (Statement s = c.createStatement()) {
        s.execute(initSql(readOnlyVariable, readOnly));
        s.execute("USE `" + schema.replace("`", "``") + "`");
        s.execute("SET SESSION autocommit = 0");
      }
      return problems(c, schema, readOnly).isEmpty();
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }
}
