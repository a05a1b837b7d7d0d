package dev.keel.agent.internal.sql;

import java.util.List;

/**
 * A statement that passed the read-only check.
 *
 * @param sql the statement in its canonical form (see {@code CanonicalSql}), without a
 *     trailing semicolon: the text to run once the edits below are applied
 * @param tables the real tables it reads, by their database names
 * @param narrowed where it names tables with hidden columns, to be replaced by a subquery of
 *     the visible columns, in text order
 * @param renamed where WITH queries are defined and referenced, with their new text
 * @param parameters how many {@code ?} parameters it has
 */
public record CheckedQuery(String sql, List<String> tables, List<Narrowed> narrowed,
    List<Renamed> renamed, int parameters) {

  /** Copies the lists. */
  public CheckedQuery {
    tables = List.copyOf(tables);
    narrowed = List.copyOf(narrowed);
    renamed = List.copyOf(renamed);
  }

  /**
   * Returns the text to run: {@link #sql()} with every rename applied and every narrowed
   * mention replaced by {@code narrowing.apply(mention)}.
   */
  public String apply(java.util.function.Function<Narrowed, String> narrowing) {
    java.util.List<Object[]> edits = new java.util.ArrayList<>();
    for (Narrowed n : narrowed) {
      edits.add(new Object[] {n.begin(), n.end(),
          (n.statement() ? "SELECT * FROM " : "") + narrowing.apply(n)});
    }
    for (Renamed r : renamed) {
      edits.add(new Object[] {r.begin(), r.end(), r.text()});
    }
    edits.sort((a, b) -> Integer.compare((Integer) b[0], (Integer) a[0]));
    StringBuilder text = new StringBuilder(sql);
    for (Object[] e : edits) {
      text.replace((Integer) e[0], (Integer) e[1], (String) e[2]);
    }
    return text.toString();
  }

  /**
   * A WITH query's name where it is defined, or a reference to it with its alias.
   *
   * @param begin where the text to replace starts in {@link #sql()}
   * @param end where it ends (exclusive)
   * @param text the replacement
   */
  public record Renamed(int begin, int end, String text) {}

  /**
   * One mention of a table with hidden columns.
   *
   * @param table the table's database name
   * @param begin where the mention starts in {@link #sql()}
   * @param end where it ends (exclusive), alias included
   * @param alias the name the rest of the statement knows it by, as written
   * @param statement true when the mention is a whole {@code TABLE name} statement, which the
   *     span covers from the keyword on and which becomes {@code SELECT * FROM} the narrowing
   */
  public record Narrowed(String table, int begin, int end, String alias, boolean statement) {}
}
