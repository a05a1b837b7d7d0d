package dev.keel.agent.internal.db;

import dev.keel.agent.TableAccess;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The schema as one principal sees it: only the tables and columns its grants name. Everything
 * the agent shows a caller (lists, descriptions, completions, the query check) goes through
 * this view, so a hidden table or column has no way to appear.
 */
public final class VisibleSchema {

  private final Map<String, TableInfo> tables;
  private final Set<String> restricted;

  private VisibleSchema(Map<String, TableInfo> tables, Set<String> restricted) {
    this.tables = tables;
    this.restricted = restricted;
  }

  /** Filters {@code all} (tables by name) through {@code access}, ignoring row rules. */
  public static VisibleSchema of(Map<String, TableInfo> all, TableAccess access) {
    return of(all, access, null);
  }

  /**
   * Filters {@code all} (tables by name) through {@code access}; a table with a row rule
   * carries the rule rendered for {@code principal} and counts as restricted, so every read of
   * it goes through the narrowing subquery.
   */
  public static VisibleSchema of(Map<String, TableInfo> all, TableAccess access,
      dev.keel.mcp.server.Principal principal) {
    Map<String, TableInfo> visible = new LinkedHashMap<>();
    java.util.Set<String> restricted = new java.util.HashSet<>();
    for (TableInfo table : all.values()) {
      if (!access.mayRead(table.name())) {
        continue;
      }
      Optional<Set<String>> limit = access.columnLimit(table.name());
      Optional<String> rule = principal == null ? Optional.empty()
          : access.rowRule(table.name());
      String rows = rule.map(r -> RowRules.render(r, principal)).orElse(null);
      if (rows != null) {
        restricted.add(table.name());
      }
      if (limit.isEmpty()) {
        visible.put(table.name(), rows == null ? table : new TableInfo(table.name(),
            table.kind(), table.description(), table.columns(), rows));
        continue;
      }
      List<ColumnInfo> columns = new ArrayList<>();
      for (ColumnInfo c : table.columns()) {
        if (limit.get().contains(c.name().toLowerCase(Locale.ROOT))) {
          columns.add(c);
        }
      }
      if (columns.isEmpty()) {
        // a grant that names no existing column shows nothing of the table
        continue;
      }
      if (columns.size() < table.columns().size()) {
        restricted.add(table.name());
      }
      visible.put(table.name(), new TableInfo(table.name(), table.kind(), table.description(),
          columns, rows));
    }
    return new VisibleSchema(java.util.Collections.unmodifiableMap(visible), Set.copyOf(restricted));
  }

  /** Returns the visible tables, sorted by name. */
  public List<TableInfo> tables() {
    return List.copyOf(tables.values());
  }

  /** Returns the names of the visible tables. */
  public Set<String> names() {
    return tables.keySet();
  }

  /** Returns the names of visible tables with hidden columns or hidden rows. */
  public Set<String> restricted() {
    return restricted;
  }

  /** Returns true when some columns or rows of {@code table} are hidden. */
  public boolean isRestricted(String table) {
    return restricted.contains(table);
  }

  /**
   * Returns the visible table named {@code requested}: exactly, else ignoring case when that is
   * unambiguous. A hidden table is never returned.
   */
  public Optional<TableInfo> table(String requested) {
    if (requested == null) {
      return Optional.empty();
    }
    TableInfo exact = tables.get(requested);
    if (exact != null) {
      return Optional.of(exact);
    }
    List<TableInfo> loose = tables.values().stream()
        .filter(t -> t.name().toLowerCase(Locale.ROOT).equals(requested.toLowerCase(Locale.ROOT)))
        .toList();
    return loose.size() == 1 ? Optional.of(loose.get(0)) : Optional.empty();
  }
}
