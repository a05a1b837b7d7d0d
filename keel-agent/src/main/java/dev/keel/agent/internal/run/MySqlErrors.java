package dev.keel.agent.internal.run;

import java.sql.SQLException;

/**
 * MySQL and MariaDB errors that the generic mapping by SQLState would let through: the server
 * gives many errors about objects the SQLState 42000 of syntax errors, with messages that name
 * tables and users ("SELECT command denied to user ... for table ..."). They are recognised by
 * the server's own error numbers. A syntax error (1064) passes as it does elsewhere: it quotes
 * only the checked statement.
 */
final class MySqlErrors {

  private MySqlErrors() {}

  /** Returns a fixed message for a MySQL error about objects or limits, else null. */
  static String message(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    if (!isMySql(e)) {
      return null;
    }
    return switch (e.getErrorCode()) {
      // table, column, routine or database access denied; command denied
      case 1142, 1143, 1044, 1045, 1227, 1370, 1410, 1698 ->
          "Refused by the database: not allowed for the agent's database user";
      // a read-only transaction
      case 1792, 1290 -> "Refused by the database: the connection is read-only";
      // max_statement_time, or KILL QUERY from the agent's own cancel
      case 1969, 1317, 3024 -> "The statement was stopped: it ran longer than the statement "
          + "timeout";
      case 1146, 1051, 1109 -> "A table in the query was not found or is not allowed";
      case 1054 -> "A column in the query was not found or is not allowed";
      case 1305, 1630 -> "A function in the query does not exist";
      case 1049 -> "Refused by the database: unknown database";
      case 1064 -> null;
      default -> state.equals("42000") || state.startsWith("HY") ? "The database refused the "
          + "query (MySQL error " + e.getErrorCode() + ")" : null;
    };
  }

  /**
   * Both drivers throw the standard {@code java.sql} exception classes, so the driver is
   * recognised by where the exception was made.
   */
  private static boolean isMySql(SQLException e) {
    for (StackTraceElement frame : e.getStackTrace()) {
      String c = frame.getClassName();
      if (c.startsWith("org.mariadb.jdbc.") || c.startsWith("com.mysql.cj.")) {
        return true;
      }
    }
    return false;
  }
}
