package dev.keel.agent.internal.sql;

import java.util.List;

/**
 * A statement that passed the read-only check.
 *
 * @param sql the statement as the caller wrote it, without a trailing semicolon
 * @param tables the real tables it reads, by their database names
 * @param withInsertAt where a WITH query of the agent's own can be added: after the statement's
 *     leading {@code WITH} (and {@code RECURSIVE}), or -1 when it has no WITH clause
 * @param parameters how many {@code ?} parameters it has
 */
public record CheckedQuery(String sql, List<String> tables, int withInsertAt, int parameters) {

  /** Copies the list. */
  public CheckedQuery {
    tables = List.copyOf(tables);
  }
}
