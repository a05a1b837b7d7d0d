package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.db.Dialect;
import java.util.List;

/**
 * Splits SQL text into the tokens one database engine sees in it. Each dialect has its own
 * lexer written from that engine's own scanner, because engines disagree about where comments,
 * strings and operators start and end ({@code //} is a comment to H2 and an operator to
 * PostgreSQL; {@code $a$} is a string to PostgreSQL and two parameters to H2), and a check that
 * reads the text differently from the engine checks a different statement.
 *
 * <p>A lexer refuses, with {@link QueryRefusedException}, every text it cannot place with
 * certainty: unterminated strings and comments, characters the engine would reject or read in
 * a way that depends on settings, and forms whose reading differs between engine versions.
 */
public interface SqlLexer {

  /**
   * Returns the tokens of {@code sql}, comments and whitespace left out.
   *
   * @throws QueryRefusedException when the text cannot be read with certainty
   */
  List<SqlToken> lex(String sql);

  /**
   * Returns {@code name} quoted the way the canonical text writes a quoted name: {@code "..."}
   * unless the engine reads that form as something else too (SQLite: a string).
   */
  default String quoteIdentifier(String name) {
    return "\"" + name.replace("\"", "\"\"") + "\"";
  }

  /** Returns the lexer of a dialect; {@code fold} is how the engine folds unquoted names. */
  static SqlLexer of(Dialect dialect, Identifiers.Fold fold) {
    return switch (dialect) {
      case POSTGRESQL -> new PostgresLexer();
      case H2 -> new H2Lexer(fold);
      case MYSQL -> new MySqlLexer();
      case SQLITE -> new SqliteLexer();
      case OTHER -> new PlainLexer(fold);
    };
  }
}
