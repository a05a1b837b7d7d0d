package dev.keel.agent.internal.sql;

/**
 * Checks shared by every lexer before it reads a text: no NUL (a C server stops reading the
 * statement there, so it would run a prefix of what was checked) and no unpaired surrogate (the
 * driver's UTF-8 encoder replaces it with {@code ?}, which is a parameter or an operator).
 */
final class LexerInput {

  private LexerInput() {}

  static void requireEncodable(String sql) {
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == 0) {
        throw new QueryRefusedException("The query contains a NUL character");
      }
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < sql.length() && Character.isLowSurrogate(sql.charAt(i + 1))) {
          i++;
          continue;
        }
        throw new QueryRefusedException("The query contains an unpaired surrogate character");
      }
      if (Character.isLowSurrogate(c)) {
        throw new QueryRefusedException("The query contains an unpaired surrogate character");
      }
    }
  }

  /** Returns the value of an ASCII hex digit, or -1 (Character.digit takes other scripts). */
  static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }

  static QueryRefusedException refused(String what, int at) {
    return new QueryRefusedException(what + " (at character " + (at + 1) + ")");
  }
}
