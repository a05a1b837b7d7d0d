package dev.keel.agent.internal.sql;

import java.util.Locale;

/**
 * How a database spells identifiers: unquoted names fold to lower case (PostgreSQL, H2 with
 * {@code DATABASE_TO_LOWER}), to upper case (standard SQL, H2 by default) or keep their case;
 * quoted names keep their case. Quoting doubles embedded quotes, so any name can be written.
 */
public final class Identifiers {

  /** How unquoted names fold. */
  public enum Fold {
    /** To lower case. */
    LOWER,
    /** To upper case. */
    UPPER,
    /** Not at all. */
    NONE
  }

  private final Fold fold;
  private final String quote;

  /** Creates the rules of one database. */
  public Identifiers(Fold fold, String quote) {
    this.fold = fold;
    this.quote = quote == null || quote.isBlank() ? "\"" : quote.strip();
  }

  /** Returns the folding rule. */
  public Fold fold() {
    return fold;
  }

  /** Returns the rules in words, for messages. */
  @Override
  public String toString() {
    return "folded " + fold.name().toLowerCase(Locale.ROOT) + ", quoted with " + quote;
  }

  /** Quotes a name so the database reads it exactly as given. */
  public String quote(String name) {
    return quote + name.replace(quote, quote + quote) + quote;
  }

  /**
   * Returns the name the database means by {@code written}, a name as it appears in SQL text:
   * quoted names lose their quotes, unquoted ones fold.
   */
  public String normalize(String written) {
    if (written.length() >= 2) {
      char first = written.charAt(0);
      char last = written.charAt(written.length() - 1);
      if ((first == '"' && last == '"') || (first == '`' && last == '`')) {
        String inner = written.substring(1, written.length() - 1);
        return inner.replace(String.valueOf(first) + first, String.valueOf(first));
      }
      if (first == '[' && last == ']') {
        return written.substring(1, written.length() - 1);
      }
    }
    return switch (fold) {
      case LOWER -> written.toLowerCase(Locale.ROOT);
      case UPPER -> written.toUpperCase(Locale.ROOT);
      case NONE -> written;
    };
  }
}
