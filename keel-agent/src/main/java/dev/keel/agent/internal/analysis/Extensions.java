package dev.keel.agent.internal.analysis;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** Where PostgreSQL extensions live, so the agent calls their objects by qualified names. */
final class Extensions {

  private Extensions() {}

  /**
   * Returns the schema of extension {@code name}, quoted for SQL, or null when the extension
   * is not installed in the current database. Qualified, because the agent's search path holds
   * only the exposed schema and pg_catalog, and extensions are best kept out of the exposed one
   * (their views would be tables there).
   */
  static String schema(Connection c, String name) throws SQLException {
    try (PreparedStatement p = c.prepareStatement("SELECT n.nspname FROM pg_catalog.pg_extension e "
        + "JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = ?")) {
      p.setString(1, name);
      try (ResultSet rs = p.executeQuery()) {
        return rs.next() ? "\"" + rs.getString(1).replace("\"", "\"\"") + "\"" : null;
      }
    }
  }
}
