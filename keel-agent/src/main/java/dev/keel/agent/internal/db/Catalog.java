package dev.keel.agent.internal.db;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the database holds in the agent's schema, read through JDBC metadata: every table and
 * view with its columns (kept for a short while, since agents list them often), and on demand
 * keys, indexes and row estimates. It knows hidden tables too; only {@link VisibleSchema}
 * decides what a caller sees.
 */
public final class Catalog {

  /** How long a table list is reused before it is read again. */
  static final long TTL_NANOS = 30_000_000_000L;

  private static final Set<String> KINDS = Set.of("TABLE", "BASE TABLE", "VIEW",
      "PARTITIONED TABLE", "MATERIALIZED VIEW", "FOREIGN TABLE");

  /**
   * A foreign key.
   *
   * @param name its name, or null
   * @param columns the referencing columns
   * @param table the referenced table
   * @param referencedColumns the referenced columns
   */
  public record ForeignKey(String name, List<String> columns, String table,
      List<String> referencedColumns) {}

  /**
   * An index.
   *
   * @param name its name
   * @param columns its columns in order
   * @param unique whether it is unique
   */
  public record Index(String name, List<String> columns, boolean unique) {}

  /**
   * Keys and indexes of one table, unfiltered.
   *
   * @param primaryKey the primary key columns (empty when none)
   * @param foreignKeys keys of this table that reference others
   * @param referencedBy keys of other tables that reference this one
   * @param indexes its indexes
   */
  public record Keys(List<String> primaryKey, List<ForeignKey> foreignKeys,
      List<ForeignKey> referencedBy, List<Index> indexes) {}

  private final Database db;
  private final ReentrantLock lock = new ReentrantLock();
  private Map<String, TableInfo> tables;
  private long readAt;

  /** Creates the catalog of a database. */
  public Catalog(Database db) {
    this.db = db;
  }

  /** Returns every table and view of the schema, by name (sorted). */
  public Map<String, TableInfo> tables() throws SQLException {
    lock.lock();
    try {
      if (tables == null || System.nanoTime() - readAt > TTL_NANOS) {
        tables = read();
        readAt = System.nanoTime();
      }
      return tables;
    } finally {
      lock.unlock();
    }
  }

  private Map<String, TableInfo> read() throws SQLException {
    try (Connection c = db.reads().getConnection()) {
      try {
        DatabaseMetaData meta = c.getMetaData();
        // MySQL under the pinned NO_BACKSLASH_ESCAPES has no LIKE escape, whatever the driver
        // says: the name goes as it is (a '_' also matches itself; the equality below decides)
        String schema = switch (db.dialect()) {
          case SQLITE -> null;
          case MYSQL -> db.schema();
          default -> pattern(meta, db.schema());
        };
        Map<String, String[]> kinds = new TreeMap<>();
        try (ResultSet rs = meta.getTables(null, schema, "%", null)) {
          while (rs.next()) {
            String type = rs.getString("TABLE_TYPE");
            if (type != null && KINDS.contains(type.toUpperCase(Locale.ROOT))
                && inSchema(rs.getString("TABLE_SCHEM"), rs.getString("TABLE_NAME"))) {
              String kind = type.toUpperCase(Locale.ROOT).contains("VIEW") ? "view" : "table";
              kinds.put(rs.getString("TABLE_NAME"), new String[] {kind, rs.getString("REMARKS")});
            }
          }
        }
        Map<String, List<ColumnInfo>> columns = new LinkedHashMap<>();
        try (ResultSet rs = meta.getColumns(null, schema, "%", "%")) {
          List<Object[]> rows = new ArrayList<>();
          while (rs.next()) {
            String table = rs.getString("TABLE_NAME");
            if (!kinds.containsKey(table) || !inSchema(rs.getString("TABLE_SCHEM"), table)) {
              continue;
            }
            String type = rs.getString("TYPE_NAME");
            int size = rs.getInt("COLUMN_SIZE");
            int jdbcType = rs.getInt("DATA_TYPE");
            if (size > 0 && size < 1_000_000 && hasLength(jdbcType)) {
              type = type + "(" + size + (jdbcType == java.sql.Types.DECIMAL
                  || jdbcType == java.sql.Types.NUMERIC ? "," + rs.getInt("DECIMAL_DIGITS") : "")
                  + ")";
            }
            rows.add(new Object[] {table, rs.getInt("ORDINAL_POSITION"),
                new ColumnInfo(rs.getString("COLUMN_NAME"), type,
                    rs.getInt("NULLABLE") != DatabaseMetaData.columnNoNulls,
                    rs.getString("COLUMN_DEF"), rs.getString("REMARKS"))});
          }
          rows.sort(Comparator.comparing((Object[] r) -> (String) r[0])
              .thenComparingInt(r -> (Integer) r[1]));
          for (Object[] r : rows) {
            columns.computeIfAbsent((String) r[0], t -> new ArrayList<>()).add((ColumnInfo) r[2]);
          }
        }
        Map<String, TableInfo> result = new TreeMap<>();
        kinds.forEach((name, kind) -> result.put(name, new TableInfo(name, kind[0],
            blankToNull(kind[1]), columns.getOrDefault(name, List.of()))));
        return java.util.Collections.unmodifiableMap(result);
      } finally {
        c.rollback();
      }
    }
  }

  /**
   * Returns true for a table of the agent's schema. sqlite-jdbc reports no schema (null) and
   * lists SQLite's own tables ({@code sqlite_schema}, {@code sqlite_sequence}, {@code
   * sqlite_stat1}) among the others; those are the catalog, never data.
   */
  private boolean inSchema(String reported, String table) {
    if (db.dialect() == Dialect.SQLITE) {
      return (reported == null || reported.equals(SqlitePins.SCHEMA)) && table != null
          && !table.toLowerCase(Locale.ROOT).startsWith("sqlite_");
    }
    return db.schema().equals(reported);
  }

  private static boolean hasLength(int jdbcType) {
    return switch (jdbcType) {
      case java.sql.Types.CHAR, java.sql.Types.VARCHAR, java.sql.Types.NCHAR,
          java.sql.Types.NVARCHAR, java.sql.Types.DECIMAL, java.sql.Types.NUMERIC -> true;
      default -> false;
    };
  }

  /** Returns the keys and indexes of a table. */
  public Keys keys(String table) throws SQLException {
    try (Connection c = db.reads().getConnection()) {
      try {
        DatabaseMetaData meta = c.getMetaData();
        String schema = db.dialect() == Dialect.SQLITE ? null : db.schema();
        Map<Integer, String> pk = new TreeMap<>();
        try (ResultSet rs = meta.getPrimaryKeys(null, schema, table)) {
          while (rs.next()) {
            pk.put(rs.getInt("KEY_SEQ"), rs.getString("COLUMN_NAME"));
          }
        }
        List<ForeignKey> imported;
        try (ResultSet rs = meta.getImportedKeys(null, schema, table)) {
          imported = foreignKeys(rs, false);
        }
        List<ForeignKey> exported;
        try (ResultSet rs = meta.getExportedKeys(null, schema, table)) {
          exported = foreignKeys(rs, true);
        }
        Map<String, Index> indexes = new TreeMap<>();
        try (ResultSet rs = meta.getIndexInfo(null, schema, table, false, true)) {
          Map<String, List<Object[]>> parts = new TreeMap<>();
          Map<String, Boolean> unique = new TreeMap<>();
          while (rs.next()) {
            String name = rs.getString("INDEX_NAME");
            String column = rs.getString("COLUMN_NAME");
            if (name == null || column == null) {
              continue;
            }
            parts.computeIfAbsent(name, n -> new ArrayList<>())
                .add(new Object[] {rs.getInt("ORDINAL_POSITION"), column});
            unique.put(name, !rs.getBoolean("NON_UNIQUE"));
          }
          parts.forEach((name, cols) -> {
            cols.sort(Comparator.comparingInt(o -> (Integer) o[0]));
            indexes.put(name, new Index(name, cols.stream().map(o -> (String) o[1]).toList(),
                unique.get(name)));
          });
        }
        return new Keys(List.copyOf(pk.values()), imported, exported,
            List.copyOf(indexes.values()));
      } finally {
        c.rollback();
      }
    }
  }

  private static List<ForeignKey> foreignKeys(ResultSet rs, boolean exported)
      throws SQLException {
    Map<String, Object[]> keys = new LinkedHashMap<>();
    while (rs.next()) {
      String name = rs.getString("FK_NAME");
      String fkTable = rs.getString("FKTABLE_NAME");
      String pkTable = rs.getString("PKTABLE_NAME");
      String key = (name == null ? "" : name) + "/" + fkTable + "/" + pkTable;
      Object[] k = keys.computeIfAbsent(key, n -> new Object[] {name,
          new TreeMap<Integer, String>(), exported ? fkTable : pkTable,
          new TreeMap<Integer, String>()});
      @SuppressWarnings("unchecked")
      Map<Integer, String> from = (Map<Integer, String>) k[1];
      @SuppressWarnings("unchecked")
      Map<Integer, String> to = (Map<Integer, String>) k[3];
      int seq = rs.getInt("KEY_SEQ");
      // for an exported key, "columns" are the other table's and "referenced" ours
      from.put(seq, rs.getString("FKCOLUMN_NAME"));
      to.put(seq, rs.getString("PKCOLUMN_NAME"));
    }
    List<ForeignKey> result = new ArrayList<>();
    for (Object[] k : keys.values()) {
      @SuppressWarnings("unchecked")
      Map<Integer, String> from = (Map<Integer, String>) k[1];
      @SuppressWarnings("unchecked")
      Map<Integer, String> to = (Map<Integer, String>) k[3];
      result.add(new ForeignKey((String) k[0], List.copyOf(from.values()), (String) k[2],
          List.copyOf(to.values())));
    }
    return result;
  }

  /**
   * Returns an estimate of a table's rows: the planner's statistics on PostgreSQL, InnoDB's on MySQL, an exact
   * count on H2 (cheap there), null where the engine offers nothing cheap.
   */
  public Long rowEstimate(String table) throws SQLException {
    if (db.dialect() == Dialect.OTHER) {
      return null;
    }
    try (Connection c = db.reads().getConnection()) {
      try {
        if (db.dialect() == Dialect.POSTGRESQL) {
          try (PreparedStatement p = c.prepareStatement("SELECT c.reltuples::bigint "
              + "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
              + "ON n.oid = c.relnamespace WHERE n.nspname = ? AND c.relname = ?")) {
            p.setString(1, db.schema());
            p.setString(2, table);
            try (ResultSet rs = p.executeQuery()) {
              if (rs.next()) {
                long value = rs.getLong(1);
                return value < 0 ? null : value;
              }
              return null;
            }
          }
        }
        if (db.dialect() == Dialect.MYSQL) {
          // InnoDB's sampled statistics, as ANALYZE TABLE or the server last left them
          try (PreparedStatement p = c.prepareStatement("SELECT table_rows FROM "
              + "information_schema.tables WHERE table_schema = ? AND table_name = ?")) {
            p.setString(1, db.schema());
            p.setString(2, table);
            try (ResultSet rs = p.executeQuery()) {
              if (rs.next()) {
                long value = rs.getLong(1);
                return rs.wasNull() ? null : value;
              }
              return null;
            }
          }
        }
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM " + db.qualified(table))) {
          return rs.next() ? rs.getLong(1) : null;
        }
      } finally {
        c.rollback();
      }
    }
  }

  private static String pattern(DatabaseMetaData meta, String name) throws SQLException {
    String escape = meta.getSearchStringEscape();
    if (escape == null || escape.isEmpty()) {
      return name;
    }
    return name.replace(escape, escape + escape).replace("_", escape + "_")
        .replace("%", escape + "%");
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }
}
