package dev.keel.agent.internal.db;

import java.util.Locale;

/** The engines the agent knows by name; anything else is served through plain JDBC. */
public enum Dialect {
  /** H2 2.x, embedded or remote. */
  H2,
  /** PostgreSQL. */
  POSTGRESQL,
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
    if (url.startsWith("jdbc:sqlite:")) {
      return SQLITE;
    }
    return OTHER;
  }
}
