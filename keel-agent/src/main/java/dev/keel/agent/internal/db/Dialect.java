package dev.keel.agent.internal.db;

import java.util.Locale;

/** The engines the agent knows by name; anything else is served through plain JDBC. */
public enum Dialect {
  /** H2 2.x, embedded or remote. */
  H2,
  /** PostgreSQL. */
  POSTGRESQL,
  /**
   * MySQL and MariaDB, through either driver ({@code jdbc:mariadb:} or {@code jdbc:mysql:}):
   * one dialect, because the server reads the SQL and pins the session; what differs between
   * the drivers (metadata terms, cancel, reset) is settled per driver in {@code MySqlPins}.
   */
  MYSQL,
  /** SQLite, a database file through sqlite-jdbc. */
  SQLITE,
  /** Any other JDBC database: metadata and queries work, engine-specific extras do not. */
  OTHER;

  /** Returns the dialect of a JDBC URL. */
  public static Dialect of(String jdbcUrl) {
    String url = jdbcUrl.toLowerCase(Locale.ROOT);
    if (url.startsWith("jdbc:h2:")) {
      return H2;
    }
    if (url.startsWith("jdbc:postgresql:")) {
      return POSTGRESQL;
    }
    if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
      return MYSQL;
    }
    if (url.startsWith("jdbc:sqlite:")) {
      return SQLITE;
    }
    return OTHER;
  }
}
