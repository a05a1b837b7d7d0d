package dev.keel.agent.internal.run;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The second layer on SQLite, asked of SQLite's own compiler before the statement runs. The
 * driver executes a statement before it notices that it returns no rows (so {@code PRAGMA
 * query_only = 0} would run through {@code executeQuery}), and it ignores any text after the
 * first statement; this guard therefore compiles the text with {@code EXPLAIN}, which runs
 * nothing, and reads the program SQLite would run:
 * <ul>
 *   <li>it must produce rows ({@code ResultRow}) and open no write transaction
 *       ({@code Transaction} with a non-zero write flag), no cursor for writing
 *       ({@code OpenWrite}), and none of the opcodes of schema changes, pragmas, ATTACH,
 *       VACUUM or virtual table writes;</li>
 *   <li>it may call no function the check refuses (extension loading, attach);</li>
 *   <li>every b-tree it reads is in the main database and belongs to a table the check allowed
 *       (its rows or one of its indexes), so SQLite's own name resolution is held to the
 *       check's. A view is read through its tables' b-trees, which the guard cannot attribute
 *       to the view, so when an allowed table is a view this last test is left to the
 *       check.</li>
 * </ul>
 */
final class SqliteGuard {

  private SqliteGuard() {}

  private static final Set<String> WRITING_OPCODES = Set.of("OpenWrite", "VUpdate", "VCreate",
      "VDestroy", "VBegin", "VRename", "Vacuum", "IncrVacuum", "Destroy", "Clear",
      "CreateBtree", "ParseSchema", "SqlExec", "DropTable", "DropIndex", "DropTrigger",
      "JournalMode", "Expire", "Checkpoint", "ResetCount", "AutoCommit", "Savepoint",
      "TableLock", "Pagecount", "MaxPgcnt", "ReadCookie", "SetCookie", "IntegrityCk",
      "LoadAnalysis", "Program", "FkCheck", "Insert", "Delete", "IdxInsert", "IdxDelete",
      "NewRowid");

  /** Returns null when SQLite compiles {@code sql} to a read-only query on allowed tables. */
  static String refusal(Connection c, String sql, Collection<String> tables) throws SQLException {
    List<Object[]> program = new ArrayList<>();
    try (PreparedStatement p = c.prepareStatement("EXPLAIN " + sql);
        ResultSet rs = p.executeQuery()) {
      while (rs.next()) {
        program.add(new Object[] {rs.getString("opcode"), rs.getInt("p1"), rs.getLong("p2"),
            rs.getInt("p3"), rs.getString("p4")});
      }
    }
    // the cursors of the statement's own temporary tables are opened at the end of the
    // program, after the code that fills them
    Set<Integer> ephemeral = new HashSet<>();
    for (Object[] op : program) {
      if (Set.of("OpenEphemeral", "OpenAutoindex", "SorterOpen", "OpenPseudo", "OpenDup")
          .contains((String) op[0])) {
        ephemeral.add((Integer) op[1]);
      }
    }
    Set<Long> pagesRead = new HashSet<>();
    boolean producesRows = false;
    for (Object[] op : program) {
      String opcode = (String) op[0];
      int p1 = (Integer) op[1];
      long p2 = (Long) op[2];
      int p3 = (Integer) op[3];
      String p4 = (String) op[4];
      switch (opcode) {
        case "ResultRow" -> producesRows = true;
        case "Transaction" -> {
          if (p2 != 0) {
            return "SQLite would open a write transaction for it";
          }
          if (p1 != 0) {
            return "it reads a database other than the main one";
          }
        }
        case "OpenRead", "ReopenIdx" -> {
          if (p3 != 0) {
            return "it reads a database other than the main one";
          }
          pagesRead.add(p2);
        }
        case "Function", "PureFunc" -> {
          String name = p4 == null ? "" : p4.toLowerCase(Locale.ROOT);
          if (name.startsWith("load_extension") || name.startsWith("sqlite_attach")
              || name.startsWith("sqlite_detach") || name.startsWith("fts3_tokenizer")
              || name.startsWith("writefile") || name.startsWith("readfile")) {
            return "it calls a function that loads code, attaches files or touches files";
          }
        }
        default -> {
          // Insert, Delete and NewRowid also fill the statement's own temporary tables
          // (materialised WITH queries, DISTINCT): only those are allowed
          boolean onEphemeral = (opcode.equals("Insert") || opcode.equals("IdxInsert")
              || opcode.equals("Delete") || opcode.equals("IdxDelete")
              || opcode.equals("NewRowid")) && ephemeral.contains(p1);
          if (WRITING_OPCODES.contains(opcode) && !onEphemeral) {
            return "SQLite compiles it to a statement that writes or changes the connection ("
                + opcode + ")";
          }
        }
      }
    }
    if (!producesRows) {
      return "SQLite does not read it as a query";
    }
    if (tables != null && !pagesRead.isEmpty()) {
      Set<Long> allowed = new HashSet<>();
      // the agent's own reading of the schema, not the caller's
      try (PreparedStatement p = c.prepareStatement("SELECT type, name, tbl_name, rootpage "
          + "FROM main.sqlite_schema");
          ResultSet rs = p.executeQuery()) {
        while (rs.next()) {
          String type = rs.getString(1);
          if (tables.contains(rs.getString(3))) {
            if (type.equals("view")) {
              return null;
            }
            allowed.add(rs.getLong(4));
          }
        }
      }
      for (long page : pagesRead) {
        if (!allowed.contains(page)) {
          return "it reads a table the check did not allow";
        }
      }
    }
    return null;
  }
}
