package dev.keel.agent.internal.run;

import java.sql.SQLException;
import java.util.List;
import org.postgresql.core.NativeQuery;
import org.postgresql.core.Parser;

/**
 * The second layer's statement count on PostgreSQL. The JDBC driver splits a statement's text
 * at every {@code ;} it sees and sends the pieces one after another; only text it sends whole
 * goes out as one Parse message, which the server refuses outright if it holds a second
 * statement ("cannot insert multiple commands into a prepared statement"). So the text is
 * handed to the driver only when the driver's own splitter, run exactly as the driver runs it,
 * finds one statement with the expected number of parameters: then, whatever the check read
 * into it, the server sees one Parse and runs at most one statement.
 */
final class DriverCheck {

  private DriverCheck() {}

  /** Returns null when the driver sends {@code sql} whole, else why not. */
  static String refusal(String sql, int parameters) {
    try {
      // as the driver's CachedQueryCreateAction does for a prepared statement
      String processed = Parser.replaceProcessing(sql, true, true);
      List<NativeQuery> queries = Parser.parseJdbcSql(processed, true, true, true, false, false);
      if (queries.size() != 1) {
        return "the driver would send it as " + queries.size() + " statements";
      }
      int binds = queries.get(0).bindPositions == null ? 0 : queries.get(0).bindPositions.length;
      if (binds != parameters) {
        return "the driver reads " + binds + " parameters in it, not " + parameters;
      }
      if (!processed.equals(sql)) {
        return "the driver would rewrite its JDBC escapes";
      }
      return null;
    } catch (SQLException | RuntimeException e) {
      return "the driver cannot read it";
    }
  }
}
