package dev.keel.agent;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What one principal may see: every table, or some tables and, per table, every column or some.
 * Names match the database's names without regard to case.
 *
 * @param everything true when every table and column is visible
 * @param columnsByTable visible tables (lower-cased names) to their visible columns (lower-cased);
 *     an empty set means every column
 * @param rowsByTable tables (lower-cased names) to the condition their visible rows meet, an SQL
 *     expression over the table's columns that may use {@code ${claims.NAME}} and
 *     {@code ${principal.id}}; a table not named here shows every row
 */
public record TableAccess(boolean everything, Map<String, Set<String>> columnsByTable,
    Map<String, String> rowsByTable) {

  private static final TableAccess EVERYTHING = new TableAccess(true, Map.of());
  private static final TableAccess NOTHING = new TableAccess(false, Map.of());

  /** Access without row rules. */
  public TableAccess(boolean everything, Map<String, Set<String>> columnsByTable) {
    this(everything, columnsByTable, Map.of());
  }

  /** Copies and lower-cases the grants. */
  public TableAccess {
    Map<String, String> rules = new LinkedHashMap<>();
    if (rowsByTable != null) {
      rowsByTable.forEach((table, rule) -> rules.put(table.toLowerCase(Locale.ROOT), rule));
    }
    rowsByTable = Map.copyOf(rules);
    Map<String, Set<String>> copy = new LinkedHashMap<>();
    if (columnsByTable != null) {
      columnsByTable.forEach((table, columns) -> {
        Set<String> lower = new TreeSet<>();
        if (columns != null) {
          columns.forEach(c -> lower.add(c.toLowerCase(Locale.ROOT)));
        }
        copy.put(table.toLowerCase(Locale.ROOT), Set.copyOf(lower));
      });
    }
    columnsByTable = Map.copyOf(copy);
  }

  /** Returns access to every table and column. */
  public static TableAccess all() {
    return EVERYTHING;
  }

  /** Returns access to nothing. */
  public static TableAccess none() {
    return NOTHING;
  }

  /** Returns true when {@code table} is visible. */
  public boolean mayRead(String table) {
    return everything || columnsByTable.containsKey(table.toLowerCase(Locale.ROOT));
  }

  /** Returns the row rule of {@code table} (unrendered), or empty when every row is visible. */
  public Optional<String> rowRule(String table) {
    return Optional.ofNullable(rowsByTable.get(table.toLowerCase(Locale.ROOT)));
  }

  /**
   * Returns the visible columns of a visible table, or empty when every column is visible.
   * Only meaningful when {@link #mayRead} is true.
   */
  public Optional<Set<String>> columnLimit(String table) {
    if (everything) {
      return Optional.empty();
    }
    Set<String> columns = columnsByTable.get(table.toLowerCase(Locale.ROOT));
    return columns == null || columns.isEmpty() ? Optional.empty() : Optional.of(columns);
  }
}
