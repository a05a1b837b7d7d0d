package dev.keel.agent.internal.run;

import java.sql.SQLException;
import java.util.Set;

/**
 * Turns a database error into a message the caller may see. The database's own text passes
 * only for errors about data and syntax, whose text echoes what the caller wrote; errors about
 * objects (a table or column that does not exist, a permission) get fixed messages, because the
 * database would name objects the caller may not see, or tell them apart from ones that do not
 * exist. Hints and details never pass.
 */
final class SqlErrors {

  private static final Set<String> PASS_THROUGH = Set.of("42601", "42000", "42001", "42804",
      "42803", "42702", "42725", "42P18", "42846", "42P22", "42611");

  private SqlErrors() {}

  static String message(SQLException e) {
    String size = tooLarge(e);
    if (size != null) {
      return size;
    }
    if (e instanceof org.sqlite.SQLiteException sqlite) {
      return SqliteErrors.message(sqlite);
    }
    String mysql = MySqlErrors.message(e);
    if (mysql != null) {
      return mysql;
    }
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    switch (state) {
      case "57014":
        return "The statement was stopped: it ran longer than the statement timeout";
      case "25006":
      case "90097":
        return "Refused by the database: the connection is read-only";
      case "90002":
        return "Refused by the database: only queries may run here";
      case "90096":
      case "42501":
        return "Refused by the database: not allowed for the agent's database user";
      case "42P01":
      case "42S02":
      case "42S01":
      case "42102":
      case "42104":
        return "A table in the query was not found or is not allowed";
      case "42703":
      case "42S22":
      case "42122":
        return "A column in the query was not found or is not allowed";
      case "42883":
      case "90022":
        return "A function in the query does not exist for these argument types";
      case "23505":
        return "Refused by the database: the change would duplicate a unique key";
      case "23503":
        return "Refused by the database: the change would break a reference to another row";
      case "23502":
        return "Refused by the database: a required column would be empty";
      case "23514":
        return "Refused by the database: a check constraint rejected the change";
      default:
        break;
    }
    if (state.startsWith("22") || state.startsWith("21") || state.startsWith("0A")
        || state.startsWith("54") || PASS_THROUGH.contains(state)) {
      return "The database refused the query: " + firstLine(e.getMessage());
    }
    return "The database refused the query (SQLState " + (state.isEmpty() ? "unknown" : state)
        + ")";
  }

  /**
   * The driver stopped reading because the database sent more than the agent holds at once
   * (a row over pgjdbc's {@code maxResultBuffer}, another message over {@link PgMessageCap}'s
   * cap); the connection is closed by then.
   */
  private static String tooLarge(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof PgMessageCap.TooLarge) {
        return "Refused while reading the answer: " + t.getMessage();
      }
      // MariaDB's and MySQL's drivers check every packet (a row is one) against
      // maxAllowedPacket before reading it
      if (t instanceof org.mariadb.jdbc.export.MaxAllowedPacketException
          || t instanceof com.mysql.cj.exceptions.CJPacketTooBigException
          || t instanceof com.mysql.cj.jdbc.exceptions.PacketTooBigException) {
        return "Refused while reading the answer: the database sent a row larger than the "
            + "agent reads at once; select fewer or narrower columns, or cut long values "
            + "(LEFT(), SUBSTRING())";
      }
      if (t instanceof SQLException s && s.getMessage() != null
          && s.getMessage().startsWith("Result set exceeded maxResultBuffer limit")) {
        return "Refused while reading the answer: the database sent more than the agent reads "
            + "at once (" + fetched(s.getMessage()) + "); select fewer or narrower columns, or "
            + "cut long values (left(), substr())";
      }
    }
    return null;
  }

  /** "Received: N; Current limit: M", the driver's words, as the caller reads them. */
  private static String fetched(String message) {
    java.util.regex.Matcher m = java.util.regex.Pattern
        .compile("Received:\\s*(\\d+);\\s*Current limit:\\s*(\\d+)").matcher(message);
    return m.find() ? "more than " + m.group(2) + " bytes in one fetch" : "one fetch";
  }

  /** Returns the database's message without hints, details, positions or echoed statements. */
  static String firstLine(String message) {
    if (message == null) {
      return "no message";
    }
    String line = message.strip().lines().findFirst().orElse("").strip();
    if (line.startsWith("ERROR: ")) {
      line = line.substring("ERROR: ".length());
    }
    int statement = line.indexOf("; SQL statement:");
    if (statement >= 0) {
      line = line.substring(0, statement);
    }
    line = line.replaceAll("\\s*\\[\\d+-\\d+]$", "");
    return line.length() > 300 ? line.substring(0, 300) + "..." : line;
  }
}
