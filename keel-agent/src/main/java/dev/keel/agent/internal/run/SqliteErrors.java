package dev.keel.agent.internal.run;

import java.util.Locale;
import org.sqlite.SQLiteErrorCode;
import org.sqlite.SQLiteException;

/**
 * SQLite's errors in words the caller may see. SQLite reports no SQLState, and its messages
 * name the objects they are about ({@code no such column: salary}), so only fixed messages
 * chosen by the kind of error pass, as for the other engines.
 */
final class SqliteErrors {

  private SqliteErrors() {}

  static String message(SQLiteException e) {
    SQLiteErrorCode code = e.getResultCode();
    String text = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
    if (code == SQLiteErrorCode.SQLITE_INTERRUPT) {
      return "The statement was stopped: it ran longer than the statement timeout or was "
          + "cancelled";
    }
    if (code == SQLiteErrorCode.SQLITE_READONLY || text.contains("readonly database")
        || text.contains("query_only")) {
      return "Refused by the database: the database file is open read-only";
    }
    if (code == SQLiteErrorCode.SQLITE_TOOBIG) {
      return "The database refused the query: a value would be larger than the "
          + "agent allows";
    }
    if (code == SQLiteErrorCode.SQLITE_AUTH || text.contains("not authorized")) {
      return "Refused by the database: not allowed on the agent's connection";
    }
    if (text.contains("no such table") || text.contains("no such view")) {
      return "A table in the query was not found or is not allowed";
    }
    if (text.contains("no such column") || text.contains("ambiguous column")) {
      return "A column in the query was not found or is not allowed";
    }
    if (text.contains("no such function") || text.contains("wrong number of arguments")) {
      return "A function in the query does not exist for these argument types";
    }
    if (text.contains("syntax error") || text.contains("incomplete input")) {
      return "The database refused the query: a syntax error";
    }
    if (text.contains("too many attached")) {
      return "Refused by the database: attaching databases is not allowed";
    }
    if (code == SQLiteErrorCode.SQLITE_BUSY || code == SQLiteErrorCode.SQLITE_LOCKED) {
      return "The database file is busy (another process is writing it); try again";
    }
    return "The database refused the query (SQLite " + code.name() + ")";
  }
}
