package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The statement check's part that only MySQL and MariaDB need: their statements and clauses
 * that write files, take locks, wait on replication or touch session state, and their functions
 * that do the same. It runs on the engine's tokens before the generic word checks, so its
 * refusals say what the MySQL feature would have done.
 */
final class MySqlTraps {

  /** Statements that are not queries, by their first word. */
  private static final Set<String> STATEMENTS = Set.of("SET", "DO", "HANDLER", "LOAD", "KILL",
      "SHOW", "FLUSH", "RESET", "PURGE", "INSTALL", "UNINSTALL", "LOCK", "UNLOCK", "RENAME",
      "REPLACE", "USE", "BINLOG", "XA", "START", "BEGIN", "SIGNAL", "RESIGNAL", "HELP",
      "ANALYZE", "OPTIMIZE", "REPAIR", "CHECK", "CHECKSUM", "BACKUP", "SHUTDOWN", "DESC",
      "DESCRIBE", "EXPLAIN", "CACHE", "CHANGE", "STOP", "RELEASE", "GET", "IMPORT");

  /** Schemas of the server itself, never the agent's. */
  private static final Set<String> SYSTEM_SCHEMAS = Set.of("information_schema", "mysql",
      "performance_schema", "sys");

  /** Functions that take locks, wait on the server, change session state or run other SQL. */
  private static final Set<String> FUNCTIONS = Set.of("load_file", "get_lock", "release_lock",
      "release_all_locks", "is_free_lock", "is_used_lock", "master_pos_wait",
      "master_gtid_wait", "source_pos_wait", "wait_for_executed_gtid_set",
      "wait_until_sql_thread_after_gtids", "last_insert_id", "sys_exec", "sys_eval", "sys_get",
      "sys_set", "sleep", "benchmark", "lastval", "setval", "nextval");

  /** Prefixes of plugin functions that reach other servers or run commands. */
  private static final List<String> PREFIXES = List.of("spider_", "mroonga_", "wsrep_",
      "lib_mysqludf_", "sys_");

  private MySqlTraps() {}

  /** Refuses what MySQL or MariaDB would run as more than a read. */
  static void check(List<SqlToken> tokens) {
    if (!tokens.isEmpty() && tokens.get(0).kind() == Kind.WORD) {
      String first = tokens.get(0).value().toUpperCase(Locale.ROOT);
      if (STATEMENTS.contains(first)) {
        throw new QueryRefusedException("Only queries are allowed (SELECT, WITH ... SELECT, "
            + "VALUES); " + first + " is a MySQL statement that " + whatItDoes(first));
      }
    }
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken t = tokens.get(i);
      SqlToken next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      if (t.kind() == Kind.WORD) {
        String word = t.value().toUpperCase(Locale.ROOT);
        if (word.equals("INTO")) {
          String target = next != null && next.kind() == Kind.WORD
              ? next.value().toUpperCase(Locale.ROOT) : "";
          throw new QueryRefusedException(switch (target) {
            case "OUTFILE" -> "SELECT ... INTO OUTFILE is not allowed: it writes a file on the "
                + "database server";
            case "DUMPFILE" -> "SELECT ... INTO DUMPFILE is not allowed: it writes a file on "
                + "the database server";
            default -> "SELECT ... INTO is not allowed: it writes (a table, a variable or a "
                + "file on the database server)";
          });
        }
        if (word.equals("LOCK") || (word.equals("FOR") && next != null
            && next.isKeyword("UPDATE"))) {
          throw new QueryRefusedException("Locking clauses (FOR UPDATE, LOCK IN SHARE MODE) "
              + "are not allowed");
        }
        if (word.equals("PROCEDURE")) {
          throw new QueryRefusedException("SELECT ... PROCEDURE is not allowed: it runs a "
              + "server procedure over the result");
        }
        if (word.equals("PREVIOUS") && next != null && next.isKeyword("VALUE")) {
          throw new QueryRefusedException("Sequence values are not allowed");
        }
        if (word.equals("HANDLER") || (word.equals("LOAD") && next != null
            && (next.isKeyword("DATA") || next.isKeyword("XML")))) {
          throw new QueryRefusedException("LOAD DATA and HANDLER are not allowed");
        }
      }
      if (t.isName() && next != null && next.is(".")
          && SYSTEM_SCHEMAS.contains(t.lower())) {
        throw new QueryRefusedException("The server's own schemas (information_schema, mysql, "
            + "performance_schema, sys) cannot be read through the agent; use list_tables and "
            + "describe_table");
      }
      if (t.isName() && next != null && next.is("(")) {
        String function = t.lower();
        if (i > 0 && tokens.get(i - 1).is(".")) {
          throw new QueryRefusedException("Functions of a named database (db.function()) are "
              + "not allowed: a stored function can do anything its definer may");
        }
        if (FUNCTIONS.contains(function) || PREFIXES.stream().anyMatch(function::startsWith)) {
          throw new QueryRefusedException("The function " + function + " is not allowed: "
              + functionReason(function));
        }
      }
    }
  }

  private static String whatItDoes(String statement) {
    return switch (statement) {
      case "SET" -> "changes settings or variables";
      case "LOAD" -> "reads files into tables";
      case "HANDLER" -> "opens tables for direct reading, outside the query check";
      case "DO" -> "evaluates expressions for their effects";
      case "KILL" -> "stops other sessions";
      case "LOCK", "UNLOCK" -> "takes or releases locks";
      default -> "is not a read-only query";
    };
  }

  private static String functionReason(String function) {
    return switch (function) {
      case "load_file" -> "it reads files on the database server";
      case "sleep", "benchmark" -> "it only keeps the server busy";
      case "get_lock", "release_lock", "release_all_locks", "is_free_lock", "is_used_lock" ->
          "it takes or inspects locks shared with other sessions";
      case "last_insert_id" -> "it changes the session's state";
      default -> function.startsWith("sys_") || function.startsWith("lib_mysqludf_")
          ? "it runs commands on the database server"
          : function.contains("wait") ? "it waits on replication"
          : "it can change state or reach other servers";
    };
  }
}
