package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * PostgreSQL's lexer, written from its scanner ({@code src/backend/parser/scan.l}, release 15)
 * and the driver's placeholder rewriting, for text the agent sends through the PostgreSQL JDBC
 * driver with {@code standard_conforming_strings} on (the agent pins it).
 *
 * <p>What the server does, rule by rule: whitespace is {@code [ \t\n\r\f]}; {@code --} runs to
 * the end of the line; {@code /* ... *}{@code /} comments nest; an operator is a run of
 * {@code ~!@#^&|`?+-*}{@code /%<>=} that stops before an embedded {@code /*} or {@code --}, and
 * loses trailing {@code +} and {@code -} unless it holds one of {@code ~!@#^&|`?%} (so
 * {@code 4 //* x *}{@code / 2} is {@code 4 / 2}); strings are standard ({@code ''} doubles a
 * quote, a backslash is a backslash), {@code E'...'} with backslash escapes, {@code U&'...'}
 * with Unicode escapes and an optional {@code UESCAPE}, bit strings {@code B'...'} and
 * {@code X'...'}, and dollar quotes {@code $tag$...$tag$} that end at the first identical
 * delimiter; a string continues after a line break and another quote; identifiers fold ASCII
 * letters to lower case and are cut to 63 bytes; a number may not run into a letter.
 *
 * <p>What the driver does first: each {@code ?} outside strings, identifiers and comments
 * becomes {@code $n}. So here {@code ?} is a parameter and ends any operator, and forms that the
 * rewriting would change ({@code ??}, {@code ?} right before a letter or digit) are refused, as
 * are {@code $n} parameters written by hand. The driver finds strings and comments with a
 * scanner of its own ({@code org.postgresql.core.Parser}), which reads three forms differently
 * from the server, so those are refused too (found by {@code LexerDifferentialTest}): a
 * {@code /*} directly followed by {@code /} (the driver takes {@code /*}{@code /} for a whole
 * comment), a {@code $} right after a digit (the driver starts no dollar quote there), and
 * {@code \'} in an {@code E'...'} string: the driver reads parts of some escape strings as
 * standard strings (after a doubled quote, in a continuation segment, after an {@code E} that
 * follows a {@code $} or a quote), and a backslash before a quote is the one place where the
 * two forms end a string differently; {@code ''} means the same to both.
 *
 * <p>Refused as uncertain: national strings ({@code N'...'}), escapes that produce bytes rather
 * than characters, characters the scanner returns as lone tokens ({@code \ { } $}), control
 * characters outside strings, and numbers that run into a letter or underscore (read
 * differently by PostgreSQL 16, refused by 15).
 */
final class PostgresLexer implements SqlLexer {

  /** NAMEDATALEN - 1: the longest identifier, in bytes. */
  static final int MAX_IDENTIFIER_BYTES = 63;

  private static final String OP_CHARS = "~!@#^&|`+-*/%<>=";
  private static final String SELF = ",()[].;:+-*/%^<>=";
  private static final String OP_OK_BEFORE_SIGN = "~!@#^&|`?%";

  @Override
  public List<SqlToken> lex(String sql) {
    LexerInput.requireEncodable(sql);
    return new Run(sql).tokens();
  }

  static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
  }

  static boolean isIdentStart(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
  }

  static boolean isIdentCont(char c) {
    return isIdentStart(c) || (c >= '0' && c <= '9') || c == '$';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** Lower-cases ASCII letters only and cuts to 63 bytes at a character boundary. */
  static String foldIdentifier(String name) {
    StringBuilder b = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      b.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : c);
    }
    return truncate(b.toString());
  }

  static String truncate(String name) {
    if (name.length() * 3 <= MAX_IDENTIFIER_BYTES
        || name.getBytes(StandardCharsets.UTF_8).length <= MAX_IDENTIFIER_BYTES) {
      return name;
    }
    int bytes = 0;
    int i = 0;
    while (i < name.length()) {
      int cp = name.codePointAt(i);
      int size = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
      if (bytes + size > MAX_IDENTIFIER_BYTES) {
        break;
      }
      bytes += size;
      i += Character.charCount(cp);
    }
    return name.substring(0, i);
  }

  /** One pass over one text. */
  private static final class Run {
    private final String s;
    private final int n;
    private final List<SqlToken> out = new ArrayList<>();
    private int i;

    Run(String s) {
      this.s = s;
      this.n = s.length();
    }

    private char at(int k) {
      return k < n ? s.charAt(k) : '\0';
    }

    List<SqlToken> tokens() {
      while (true) {
        skipSpaceAndComments();
        if (i >= n) {
          return out;
        }
        token();
      }
    }

    private void skipSpaceAndComments() {
      while (i < n) {
        char c = s.charAt(i);
        if (isSpace(c)) {
          i++;
        } else if (c == '-' && at(i + 1) == '-') {
          i = lineEnd(i);
        } else if (c == '/' && at(i + 1) == '*') {
          i = blockCommentEnd(i);
        } else {
          return;
        }
      }
    }

    private int lineEnd(int k) {
      while (k < n && s.charAt(k) != '\n' && s.charAt(k) != '\r') {
        k++;
      }
      return k;
    }

    private int blockCommentEnd(int start) {
      if (at(start + 2) == '/') {
        // the driver's scanner closes the comment on the '*' it opened with: it sends what
        // follows as SQL (splitting at ';', numbering '?') while the server skips it
        throw LexerInput.refused("A comment that starts with '/*/' is not accepted", start);
      }
      int depth = 0;
      int k = start + 2;
      while (k < n) {
        if (s.startsWith("/*", k)) {
          depth++;
          k += 2;
        } else if (s.startsWith("*/", k)) {
          if (depth == 0) {
            return k + 2;
          }
          depth--;
          k += 2;
        } else {
          k++;
        }
      }
      throw LexerInput.refused("Unterminated /* comment", start);
    }

    private void token() {
      char c = s.charAt(i);
      int start = i;
      if (c == '\'') {
        quoted(start, i, Form.STANDARD);
      } else if (c == '"') {
        quotedIdentifier(start, i, false);
      } else if (isIdentStart(c)) {
        word();
      } else if (isDigit(c) || (c == '.' && isDigit(at(i + 1)))) {
        number();
      } else if (c == '$') {
        dollar();
      } else if (c == '?') {
        if (at(i + 1) == '?') {
          throw LexerInput.refused("The operator ?? is not accepted", i);
        }
        if (isIdentCont(at(i + 1))) {
          throw LexerInput.refused("A ? parameter must not run into a name or number", i);
        }
        i++;
        out.add(new SqlToken(Kind.PARAMETER, start, i, "?"));
      } else if (c == ':') {
        if (at(i + 1) == ':' || at(i + 1) == '=') {
          i += 2;
          out.add(new SqlToken(Kind.OPERATOR, start, i, s.substring(start, i)));
        } else {
          i++;
          out.add(new SqlToken(Kind.PUNCT, start, i, ":"));
        }
      } else if (c == '.' && at(i + 1) == '.') {
        throw LexerInput.refused("'..' is not accepted", i);
      } else if (OP_CHARS.indexOf(c) >= 0) {
        operator();
      } else if (SELF.indexOf(c) >= 0) {
        i++;
        out.add(new SqlToken(Kind.PUNCT, start, i, String.valueOf(c)));
      } else if (c < 0x20 || c == 0x7f) {
        throw LexerInput.refused("The query contains a control character outside a string", i);
      } else {
        throw LexerInput.refused("The character '" + c + "' is not accepted here", i);
      }
    }

    private void word() {
      int start = i;
      char c = s.charAt(i);
      char next = at(i + 1);
      if (next == '\'') {
        switch (c) {
          case 'e', 'E' -> {
            quoted(start, i + 1, Form.ESCAPE);
            return;
          }
          case 'b', 'B', 'x', 'X' -> {
            quoted(start, i + 1, Form.BITS);
            return;
          }
          case 'n', 'N' -> throw LexerInput.refused("National strings (N'...') are not "
              + "accepted; write a plain string", i);
          default -> {
            // an identifier followed by a string, such as an alias after a literal
          }
        }
      }
      if ((c == 'u' || c == 'U') && next == '&' && (at(i + 2) == '\'' || at(i + 2) == '"')) {
        if (at(i + 2) == '\'') {
          quoted(start, i + 2, Form.UNICODE);
        } else {
          quotedIdentifier(start, i + 2, true);
        }
        return;
      }
      int k = i + 1;
      while (k < n && isIdentCont(s.charAt(k))) {
        k++;
      }
      i = k;
      out.add(new SqlToken(Kind.WORD, start, k, foldIdentifier(s.substring(start, k))));
    }

    private void number() {
      int start = i;
      int k = i;
      while (isDigit(at(k))) {
        k++;
      }
      if (at(k) == '.') {
        if (at(k + 1) == '.') {
          throw LexerInput.refused("'..' after a number is not accepted", k);
        }
        k++;
        while (isDigit(at(k))) {
          k++;
        }
      }
      if (at(k) == 'e' || at(k) == 'E') {
        int e = k + 1;
        if (at(e) == '+' || at(e) == '-') {
          e++;
        }
        if (!isDigit(at(e))) {
          throw LexerInput.refused("Trailing junk after a number", start);
        }
        k = e;
        while (isDigit(at(k))) {
          k++;
        }
      }
      if (k < n && (isIdentStart(s.charAt(k)) || s.charAt(k) == '.')) {
        throw LexerInput.refused("Trailing junk after a number", start);
      }
      i = k;
      out.add(new SqlToken(Kind.NUMBER, start, k, s.substring(start, k)));
    }

    private void dollar() {
      int start = i;
      if (start > 0 && isIdentCont(s.charAt(start - 1))) {
        // only after a number: the driver starts no dollar quote after a digit, so it would
        // read the quoted text as SQL (splitting at ';', numbering '?')
        throw LexerInput.refused("A dollar quote right after a number is not accepted", i);
      }
      int k = i + 1;
      if (isDigit(at(k))) {
        throw LexerInput.refused("$n parameters are not accepted; use ?", i);
      }
      if (at(k) != '$') {
        // a tag: a letter, underscore or non-ASCII character, then those or digits (no '$')
        if (k >= n || !isIdentStart(s.charAt(k))) {
          throw LexerInput.refused("A lone '$' is not accepted", i);
        }
        while (k < n && (isIdentStart(s.charAt(k)) || isDigit(s.charAt(k)))) {
          k++;
        }
        if (at(k) != '$' || k >= n) {
          throw LexerInput.refused("A '$' that starts no dollar quote is not accepted", i);
        }
      }
      String delimiter = s.substring(start, k + 1);
      int close = s.indexOf(delimiter, k + 1);
      if (close < 0) {
        throw LexerInput.refused("Unterminated dollar-quoted string", start);
      }
      i = close + delimiter.length();
      out.add(new SqlToken(Kind.STRING, start, i, s.substring(k + 1, close)));
    }

    private void operator() {
      int start = i;
      int k = i;
      while (k < n && OP_CHARS.indexOf(s.charAt(k)) >= 0) {
        k++;
      }
      String run = s.substring(start, k);
      int chars = run.length();
      int comment = firstCommentStart(run);
      if (comment >= 0) {
        chars = comment;
      }
      while (chars > 1 && (run.charAt(chars - 1) == '+' || run.charAt(chars - 1) == '-')) {
        boolean keeps = false;
        for (int j = chars - 2; j >= 0; j--) {
          if (OP_OK_BEFORE_SIGN.indexOf(run.charAt(j)) >= 0) {
            keeps = true;
            break;
          }
        }
        if (keeps) {
          break;
        }
        chars--;
      }
      if (chars >= 64) {
        throw LexerInput.refused("Operator too long", start);
      }
      i = start + chars;
      String op = run.substring(0, chars);
      out.add(new SqlToken(Kind.OPERATOR, start, i, op));
    }

    private static int firstCommentStart(String run) {
      int slash = run.indexOf("/*");
      int dash = run.indexOf("--");
      if (slash < 0) {
        return dash;
      }
      return dash < 0 ? slash : Math.min(slash, dash);
    }

    /** The forms of a quoted string. */
    private enum Form { STANDARD, ESCAPE, UNICODE, BITS }

    /**
     * A string whose opening quote is at {@code quote} (after any prefix), with its
     * continuation segments, and for {@code U&} strings the {@code UESCAPE} clause.
     */
    private void quoted(int start, int quote, Form form) {
      StringBuilder value = new StringBuilder();
      int k = quote + 1;
      while (true) {
        while (true) {
          if (k >= n) {
            throw LexerInput.refused("Unterminated quoted string", start);
          }
          char c = s.charAt(k);
          if (c == '\'') {
            if (form != Form.BITS && at(k + 1) == '\'') {
              value.append('\'');
              k += 2;
              continue;
            }
            k++;
            break;
          }
          if (c == '\\' && form == Form.ESCAPE) {
            k = escape(k, value, start);
            continue;
          }
          value.append(c);
          k++;
        }
        int next = continuation(k);
        if (next < 0) {
          break;
        }
        k = next + 1;
      }
      int end = k;
      String text = value.toString();
      if (form == Form.BITS) {
        String body = text;
        char kind = Character.toLowerCase(s.charAt(start));
        for (int j = 0; j < body.length(); j++) {
          char c = body.charAt(j);
          boolean ok = kind == 'b' ? (c == '0' || c == '1') : LexerInput.hex(c) >= 0;
          if (!ok) {
            throw LexerInput.refused("Invalid bit string", start);
          }
        }
        i = end;
        out.add(new SqlToken(Kind.BIT_STRING, start, end, kind + "'" + body + "'"));
        return;
      }
      if (form == Form.UNICODE) {
        Uescape u = uescape(end);
        text = Unicode.decode(text, u.escape, start);
        end = u.end;
      }
      i = end;
      out.add(new SqlToken(Kind.STRING, start, end, text));
    }

    /**
     * Returns the position of the opening quote of a continuation segment after a string
     * that ended just before {@code k}, or -1: optional horizontal space and {@code --}
     * comments, a line break, then any whitespace and comments that end in a line break.
     */
    private int continuation(int k) {
      int j = k;
      while (j < n) {
        char c = s.charAt(j);
        if (c == ' ' || c == '\t' || c == '\f') {
          j++;
        } else if (c == '-' && at(j + 1) == '-') {
          j = lineEnd(j);
        } else {
          break;
        }
      }
      if (j >= n || (s.charAt(j) != '\n' && s.charAt(j) != '\r')) {
        return -1;
      }
      while (j < n) {
        char c = s.charAt(j);
        if (isSpace(c)) {
          j++;
        } else if (c == '-' && at(j + 1) == '-') {
          int e = lineEnd(j);
          if (e >= n) {
            return -1;
          }
          j = e;
        } else {
          break;
        }
      }
      return at(j) == '\'' && j < n ? j : -1;
    }

    /** A backslash escape of an {@code E'...'} string at {@code k}; returns where it ends. */
    private int escape(int k, StringBuilder value, int start) {
      char e = at(k + 1);
      if (k + 1 >= n) {
        throw LexerInput.refused("Unterminated quoted string", start);
      }
      switch (e) {
        case '\'' -> throw LexerInput.refused("\\' in an E'...' string is not accepted (the "
            + "JDBC driver may read it as the end of the string); write '' for a quote", k);
        case 'b' -> value.append('\b');
        case 'f' -> value.append('\f');
        case 'n' -> value.append('\n');
        case 'r' -> value.append('\r');
        case 't' -> value.append('\t');
        case 'x' -> {
          int j = k + 2;
          int v = 0;
          while (j < k + 4 && LexerInput.hex(at(j)) >= 0 && j < n) {
            v = v * 16 + LexerInput.hex(at(j));
            j++;
          }
          if (j == k + 2) {
            value.append('x');
            return k + 2;
          }
          return ascii(v, value, k, j);
        }
        case 'u', 'U' -> {
          int digits = e == 'u' ? 4 : 8;
          int j = k + 2;
          int cp = 0;
          for (int d = 0; d < digits; d++, j++) {
            int v = LexerInput.hex(at(j));
            if (v < 0 || j >= n) {
              throw LexerInput.refused("Invalid Unicode escape", k);
            }
            cp = cp * 16 + v;
          }
          appendCodePoint(cp, value, k);
          return j;
        }
        default -> {
          if (e >= '0' && e <= '7') {
            int j = k + 1;
            int v = 0;
            while (j < k + 4 && at(j) >= '0' && at(j) <= '7' && j < n) {
              v = v * 8 + (at(j) - '0');
              j++;
            }
            return ascii(v, value, k, j);
          }
          value.append(e);
        }
      }
      return k + 2;
    }

    private int ascii(int v, StringBuilder value, int k, int end) {
      if (v == 0 || v >= 0x80) {
        throw LexerInput.refused("Escapes that produce a NUL or a single byte above 0x7F "
            + "are not accepted", k);
      }
      value.append((char) v);
      return end;
    }

    private void appendCodePoint(int cp, StringBuilder value, int k) {
      if (!Character.isValidCodePoint(cp) || cp == 0
          || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
        // surrogate pairs written as two escapes are valid in PostgreSQL but rare: refused
        throw LexerInput.refused("Invalid Unicode escape value", k);
      }
      value.appendCodePoint(cp);
    }

    private void quotedIdentifier(int start, int quote, boolean unicode) {
      StringBuilder value = new StringBuilder();
      int k = quote + 1;
      while (true) {
        if (k >= n) {
          throw LexerInput.refused("Unterminated quoted identifier", start);
        }
        char c = s.charAt(k);
        if (c == '"') {
          if (at(k + 1) == '"') {
            value.append('"');
            k += 2;
            continue;
          }
          k++;
          break;
        }
        value.append(c);
        k++;
      }
      if (value.length() == 0) {
        throw LexerInput.refused("Zero-length quoted identifier", start);
      }
      int end = k;
      String name = value.toString();
      if (unicode) {
        Uescape u = uescape(end);
        name = Unicode.decode(name, u.escape, start);
        end = u.end;
        if (name.isEmpty()) {
          throw LexerInput.refused("Zero-length quoted identifier", start);
        }
      }
      i = end;
      out.add(new SqlToken(Kind.QUOTED_IDENTIFIER, start, end, truncate(name)));
    }

    /** The escape character of a {@code U&} form and where the form ends. */
    private record Uescape(char escape, int end) {}

    /**
     * Reads an optional {@code UESCAPE 'c'} after a {@code U&} form ending at {@code end}. The
     * server's grammar takes it as the next token, after whitespace and comments.
     */
    private Uescape uescape(int end) {
      int saved = i;
      int savedSize = out.size();
      i = end;
      skipSpaceAndComments();
      int k = i;
      if (k + 7 <= n && s.regionMatches(true, k, "uescape", 0, 7)
          && (k + 7 >= n || !isIdentCont(s.charAt(k + 7)))) {
        i = k + 7;
        skipSpaceAndComments();
        if (at(i) != '\'' || i >= n) {
          throw LexerInput.refused("UESCAPE must be followed by a one-character string", k);
        }
        quoted(i, i, Form.STANDARD);
        SqlToken escape = out.remove(out.size() - 1);
        char e = escape.value().length() == 1 ? escape.value().charAt(0) : '\0';
        // the server wants one byte (strlen(escape) == 1), so no character beyond ASCII
        if (e == '\0' || e >= 0x80 || LexerInput.hex(e) >= 0 || e == '+' || e == '\''
            || e == '"' || isSpace(e)) {
          throw LexerInput.refused("Invalid Unicode escape character", k);
        }
        Uescape u = new Uescape(e, escape.end());
        i = saved;
        while (out.size() > savedSize) {
          out.remove(out.size() - 1);
        }
        return u;
      }
      i = saved;
      return new Uescape('\\', end);
    }
  }
}
