package dev.keel.agent.internal.sql;

import java.util.List;

/**
 * A statement that passed the read-only check.
 *
 * @param sql the statement as the caller wrote it, without a trailing semicolon
 * @param tables the real tables it reads, by their database names
 * @param narrowed where it names tables with hidden columns, to be replaced by a subquery of
 *     the visible columns, in text order
 * @param parameters how many {@code ?} parameters it has
 */
public record CheckedQuery(String sql, List<String> tables, List<Narrowed> narrowed,
    int parameters) {

  /** Copies the lists. */
  public CheckedQuery {
    tables = List.copyOf(tables);
    narrowed = List.copyOf(narrowed);
  }

  /**
   * One mention of a table with hidden columns.
   *
   * @param table the table's database name
   * @param begin where the mention starts in {@link #sql()}
   * @param end where it ends (exclusive), alias included
   * @param alias the name the rest of the statement knows it by, as written
   */
  public record Narrowed(String table, int begin, int end, String alias) {}
}
