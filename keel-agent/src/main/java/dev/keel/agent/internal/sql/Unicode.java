package dev.keel.agent.internal.sql;

/**
 * Decodes the body of a {@code U&'...'} string or {@code U&"..."} identifier the way PostgreSQL
 * and H2 both do for valid input: the escape character twice is itself, followed by four hex
 * digits or by {@code +} and six hex digits it is that code point. Anything else, NUL and
 * surrogate code points are refused (the engines differ there, or reject it themselves).
 */
final class Unicode {

  private Unicode() {}

  static String decode(String body, int escape, int at) {
    StringBuilder out = new StringBuilder(body.length());
    int i = 0;
    while (i < body.length()) {
      int cp = body.codePointAt(i);
      i += Character.charCount(cp);
      if (cp != escape) {
        out.appendCodePoint(cp);
        continue;
      }
      if (i < body.length() && body.codePointAt(i) == escape) {
        out.appendCodePoint(escape);
        i += Character.charCount(escape);
        continue;
      }
      int digits = 4;
      if (i < body.length() && body.charAt(i) == '+') {
        digits = 6;
        i++;
      }
      if (i + digits > body.length()) {
        throw LexerInput.refused("Invalid Unicode escape", at);
      }
      int value = 0;
      for (int d = 0; d < digits; d++) {
        int v = LexerInput.hex(body.charAt(i + d));
        if (v < 0) {
          throw LexerInput.refused("Invalid Unicode escape", at);
        }
        value = value * 16 + v;
      }
      i += digits;
      if (value == 0 || !Character.isValidCodePoint(value)
          || (value >= Character.MIN_SURROGATE && value <= Character.MAX_SURROGATE)) {
        throw LexerInput.refused("Invalid Unicode escape value", at);
      }
      out.appendCodePoint(value);
    }
    return out.toString();
  }
}
