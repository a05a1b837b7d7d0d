package dev.keel.agent.internal.db;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * A table or view and its columns, in column order.
 *
 * @param name its name as stored
 * @param kind {@code table} or {@code view}
 * @param description its comment, or null
 * @param columns its columns (as one principal sees them: only the visible ones)
 * @param rowFilter the SQL condition a principal's rows of it meet, with the principal's claims
 *     already in it as literals, or null when it sees every row
 */
public record TableInfo(String name, String kind, String description, List<ColumnInfo> columns,
    String rowFilter) {

  /** Copies the columns. */
  public TableInfo {
    columns = List.copyOf(columns);
  }

  /** A table whose every row is visible. */
  public TableInfo(String name, String kind, String description, List<ColumnInfo> columns) {
    this(name, kind, description, columns, null);
  }

  /** Returns the column named {@code requested}: exactly, else ignoring case when unambiguous. */
  public Optional<ColumnInfo> column(String requested) {
    if (requested == null) {
      return Optional.empty();
    }
    for (ColumnInfo c : columns) {
      if (c.name().equals(requested)) {
        return Optional.of(c);
      }
    }
    List<ColumnInfo> loose = columns.stream()
        .filter(c -> c.name().toLowerCase(Locale.ROOT).equals(requested.toLowerCase(Locale.ROOT)))
        .toList();
    return loose.size() == 1 ? Optional.of(loose.get(0)) : Optional.empty();
  }

  /** Returns the column names. */
  public List<String> columnNames() {
    return columns.stream().map(ColumnInfo::name).toList();
  }
}
