package dev.keel.agent.internal.sql;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The statement check's SQLite part: words and functions that are harmless elsewhere but on
 * SQLite attach other files, change the connection, load code or reveal the schema. The
 * engine-side layer (a read-only open, {@code query_only}, no attached databases, no extension
 * loading, bounded value sizes) stops them too; refusing them here gives the caller a plain
 * reason instead of an engine error.
 */
final class SqliteTraps {

  private SqliteTraps() {}

  /** Statement words the general check does not know (ATTACH '/tmp/x.db' AS x, PRAGMA ...). */
  private static final Set<String> STATEMENT_WORDS = Set.of("ATTACH", "DETACH", "PRAGMA",
      "ANALYZE", "REINDEX", "VACUUM", "REPLACE", "UPSERT", "BEGIN", "END", "RELEASE");

  /**
   * Functions refused by name: extension loading, the shell's file functions (absent from the
   * library, refused in case a build has them), FTS3's tokenizer registration (it can hand
   * SQLite a function pointer), and the attach functions behind ATTACH and DETACH.
   */
  private static final Set<String> FUNCTIONS = Set.of("load_extension", "readfile",
      "writefile", "edit", "fts3_tokenizer", "sqlite_attach", "sqlite_detach", "fts5",
      "fts5_source_id", "sqlite_dbpage", "sqlite_dbdata", "sqlite_dbptr", "dbstat",
      "sqlite_compileoption_get", "sqlite_compileoption_used", "sqlite_offset",
      "unhex_write", "zipfile", "sqlar_compress", "sqlar_uncompress", "shell_add_schema",
      "shell_module_schema", "shell_putsnl", "shell_escape_crnl", "shell_int32",
      "shell_idquote", "sha3_query");

  /** Function names refused by prefix: table-valued pragmas read and set the schema. */
  private static final List<String> PREFIXES = List.of("pragma_", "sqlite_", "fts3", "fts4",
      "fts5", "json_each_write");

  /** Allowed although a prefix refuses them: they only describe the library. */
  private static final Set<String> ALLOWED = Set.of("sqlite_version", "sqlite_source_id");

  static void check(List<SqlToken> tokens) {
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken t = tokens.get(i);
      SqlToken next = i + 1 < tokens.size() ? tokens.get(i + 1) : null;
      if (t.kind() == SqlToken.Kind.WORD) {
        String word = t.value().toUpperCase(Locale.ROOT);
        // the check has already refused a second statement; REPLACE is a function elsewhere
        boolean statement = i == 0;
        if (word.equals("ATTACH") || word.equals("DETACH")) {
          throw new QueryRefusedException("ATTACH and DETACH are not allowed: the agent "
              + "reads only its own database file");
        }
        if (word.equals("PRAGMA")) {
          throw new QueryRefusedException("PRAGMA statements are not allowed: they change "
              + "or reveal the connection's settings and the schema");
        }
        if (statement && STATEMENT_WORDS.contains(word)) {
          throw new QueryRefusedException("Only read-only queries are allowed; the statement "
              + "starts with " + word);
        }
        if (word.equals("INSERT") && next != null && next.isKeyword("OR")) {
          throw new QueryRefusedException("INSERT OR ... writes; only queries are allowed");
        }
      }
      if (t.isName() && next != null && next.is("(")) {
        String function = t.lower();
        if (denied(function)) {
          throw new QueryRefusedException("The function " + function + " is not allowed on "
              + "SQLite: it loads code, touches files or reveals the schema");
        }
      }
      if (t.isName() && t.lower().startsWith("pragma_")) {
        // a table-valued pragma named without arguments (FROM pragma_table_list)
        throw new QueryRefusedException("Table-valued pragmas are not allowed: they reveal "
            + "the schema");
      }
    }
  }

  static boolean denied(String function) {
    if (ALLOWED.contains(function)) {
      return false;
    }
    if (FUNCTIONS.contains(function)) {
      return true;
    }
    for (String prefix : PREFIXES) {
      if (function.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
