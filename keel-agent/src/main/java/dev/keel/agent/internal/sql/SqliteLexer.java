package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * SQLite's lexer, written from the behaviour of its tokenizer ({@code tokenize.c},
 * {@code sqlite3GetToken}).
 *
 * <p>What SQLite does: whitespace is space, tab, newline, form feed and carriage return (not
 * the vertical tab); {@code --} runs to the end of the line; {@code /* *}{@code /} does not nest, and an
 * unterminated one runs to the end of the text (accepted by SQLite, refused here: what follows
 * it is invisible to everyone but the engine); strings are {@code '...'} with {@code ''} for a
 * quote and may span lines; names are {@code "..."}, {@code `...`} (each with its quote doubled
 * inside) and {@code [...]} (no escape at all); {@code X'..'} is a blob (refused: JSqlParser
 * reads it as a kind of token of its own); numbers may be hex
 * ({@code 0x1F}); {@code ==} is {@code =}; parameters are {@code ?}, {@code ?NNN},
 * {@code :name}, {@code @name}, {@code $name} and {@code #name}, and a {@code $} may also sit
 * inside an unquoted name.
 *
 * <p>Refused as uncertain or as state a query has no business touching: every parameter form
 * but a plain {@code ?}; {@code $} and non-ASCII characters in unquoted names (SQLite takes every
 * byte above 0x7f as a name character, JSqlParser does not); numbers with {@code _} digit
 * separators or a name right after them; the JSON operators {@code ->} and {@code ->>}; control
 * characters; an empty quoted name.
 *
 * <p>SQLite reads a double-quoted name that matches no column as a string literal (the
 * "DQS" misfeature; the driver cannot turn it off). The canonical text therefore writes every
 * quoted name in backticks ({@link #quoteIdentifier}), which SQLite never reads as a string: a
 * name that matches nothing is an error, as the check assumed.
 */
final class SqliteLexer implements SqlLexer {

  @Override
  public List<SqlToken> lex(String sql) {
    LexerInput.requireEncodable(sql);
    return new Run(sql).tokens();
  }

  @Override
  public String quoteIdentifier(String name) {
    return "`" + name.replace("`", "``") + "`";
  }

  /**
   * The tokenizer's white space (its CC_SPACE class). Not sqlite3Isspace: the vertical tab is
   * space to that but an illegal token to the tokenizer (found by SqliteDifferentialTest).
   */
  static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** An ASCII name character (SQLite also takes '$' and every byte above 0x7f). */
  private static boolean isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || isDigit(c) || c == '_';
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
      while (i < n) {
        char c = s.charAt(i);
        if (isSpace(c)) {
          i++;
        } else if (c == '-' && at(i + 1) == '-') {
          while (i < n && s.charAt(i) != '\n') {
            i++;
          }
        } else if (c == '/' && at(i + 1) == '*') {
          int close = s.indexOf("*/", i + 2);
          if (close < 0) {
            // SQLite reads the rest of the text as a comment; nobody else would
            throw LexerInput.refused("Unterminated /* comment", i);
          }
          i = close + 2;
        } else {
          token(c);
        }
      }
      return out;
    }

    private void add(Kind kind, int end, String value) {
      out.add(new SqlToken(kind, i, end, value));
      i = end;
    }

    private void token(char c) {
      char next = at(i + 1);
      switch (c) {
        case '(', ')', ',', ';' -> add(Kind.PUNCT, i + 1, String.valueOf(c));
        case '+', '*', '%', '&', '~' -> add(Kind.OPERATOR, i + 1, String.valueOf(c));
        case '/' -> add(Kind.OPERATOR, i + 1, "/");
        case '-' -> {
          if (next == '>') {
            throw LexerInput.refused("The JSON operators -> and ->> are not accepted; use "
                + "json_extract()", i);
          }
          add(Kind.OPERATOR, i + 1, "-");
        }
        // SQLite reads == as =; the canonical text writes it so
        case '=' -> add(Kind.OPERATOR, next == '=' ? i + 2 : i + 1, "=");
        case '<' -> {
          int end = next == '=' || next == '>' || next == '<' ? i + 2 : i + 1;
          add(Kind.OPERATOR, end, s.substring(i, end));
        }
        case '>' -> {
          int end = next == '=' || next == '>' ? i + 2 : i + 1;
          add(Kind.OPERATOR, end, s.substring(i, end));
        }
        case '!' -> {
          if (next != '=') {
            throw LexerInput.refused("'!' is not accepted here", i);
          }
          add(Kind.OPERATOR, i + 2, "!=");
        }
        case '|' -> add(Kind.OPERATOR, next == '|' ? i + 2 : i + 1, next == '|' ? "||" : "|");
        case '\'' -> string();
        case '"', '`' -> quoted(c, c);
        case '[' -> quoted('[', ']');
        case '.' -> {
          if (isDigit(next)) {
            number();
          } else {
            add(Kind.PUNCT, i + 1, ".");
          }
        }
        case '?' -> {
          if (isDigit(next)) {
            throw LexerInput.refused("Numbered parameters (?1) are not accepted; use ?", i);
          }
          add(Kind.PARAMETER, i + 1, "?");
        }
        case '$', ':', '@', '#' -> throw LexerInput.refused("Named parameters (" + c
            + "name) are not accepted; use ?", i);
        default -> {
          if (isDigit(c)) {
            number();
          } else if ((c == 'x' || c == 'X') && next == '\'') {
            blob();
          } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_') {
            name();
          } else if (c > 0x7f) {
            throw LexerInput.refused("Names must be plain ASCII unless quoted", i);
          } else {
            throw LexerInput.refused("The character '" + (c < ' ' ? "\\u" + Integer.toHexString(c)
                : String.valueOf(c)) + "' is not accepted here", i);
          }
        }
      }
    }

    private void name() {
      int k = i;
      while (k < n && isNameChar(s.charAt(k))) {
        k++;
      }
      if (k < n && (s.charAt(k) == '$' || s.charAt(k) > 0x7f)) {
        throw LexerInput.refused("'$' and non-ASCII characters in unquoted names are not "
            + "accepted; quote the name", i);
      }
      // SQLite compares names without regard to ASCII case but stores them as written; the
      // agent matches them exactly as stored
      add(Kind.WORD, k, s.substring(i, k));
    }

    private void number() {
      int start = i;
      int k = i;
      if (s.charAt(k) == '0' && (at(k + 1) == 'x' || at(k + 1) == 'X')
          && LexerInput.hex(at(k + 2)) >= 0) {
        k += 2;
        while (k < n && LexerInput.hex(s.charAt(k)) >= 0) {
          k++;
        }
      } else {
        while (isDigit(at(k))) {
          k++;
        }
        if (at(k) == '.') {
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
            throw LexerInput.refused("Invalid number", start);
          }
          k = e;
          while (isDigit(at(k))) {
            k++;
          }
        }
      }
      char after = at(k);
      if (k < n && (isNameChar(after) || after == '$' || after == '.' || after > 0x7f)) {
        // SQLite reads 1_000 as one number (3.46) and 1abc as an error; JSqlParser as two
        // tokens
        throw LexerInput.refused("A number must not run into a name, '.' or '_'", start);
      }
      add(Kind.NUMBER, k, s.substring(start, k));
    }

    private void string() {
      StringBuilder value = new StringBuilder();
      int k = i + 1;
      while (true) {
        int close = s.indexOf('\'', k);
        if (close < 0) {
          throw LexerInput.refused("Unterminated quoted string", i);
        }
        value.append(s, k, close);
        if (at(close + 1) == '\'' && close + 1 < n) {
          value.append('\'');
          k = close + 2;
          continue;
        }
        k = close + 1;
        break;
      }
      requirePrintable(value, i);
      if (!out.isEmpty() && out.get(out.size() - 1).kind() == Kind.STRING) {
        throw LexerInput.refused("Two strings in a row are not accepted", i);
      }
      add(Kind.STRING, k, value.toString());
    }

    private void quoted(char open, char close) {
      StringBuilder value = new StringBuilder();
      int k = i + 1;
      while (true) {
        int end = s.indexOf(close, k);
        if (end < 0) {
          throw LexerInput.refused("Unterminated quoted identifier", i);
        }
        value.append(s, k, end);
        // brackets have no escape: the first ] ends the name
        if (open != '[' && at(end + 1) == close && end + 1 < n) {
          value.append(close);
          k = end + 2;
          continue;
        }
        k = end + 1;
        break;
      }
      if (value.length() == 0) {
        throw LexerInput.refused("Zero-length quoted identifier", i);
      }
      requirePrintable(value, i);
      add(Kind.QUOTED_IDENTIFIER, k, value.toString());
    }

    private void blob() {
      int close = s.indexOf('\'', i + 2);
      if (close < 0) {
        throw LexerInput.refused("Unterminated blob literal", i);
      }
      String body = s.substring(i + 2, close);
      for (int j = 0; j < body.length(); j++) {
        if (LexerInput.hex(body.charAt(j)) < 0) {
          throw LexerInput.refused("Blob literals must hold only hex digits", i);
        }
      }
      if (body.length() % 2 != 0) {
        throw LexerInput.refused("Blob literals must hold whole bytes", i);
      }
      // JSqlParser reads X'..' as a token of its own kind, not a string, so the canonical
      // text could not be verified; refused with its own reason rather than a vague one
      throw LexerInput.refused("Blob literals (X'...') are not accepted; compare with "
          + "hex(column) = '...' instead", i);
    }

    /** Line breaks and tabs may sit in a string or name; other control characters may not. */
    private static void requirePrintable(CharSequence value, int at) {
      for (int j = 0; j < value.length(); j++) {
        char c = value.charAt(j);
        if ((c < ' ' && c != '\n' && c != '\r' && c != '\t') || c == 0x7f) {
          throw LexerInput.refused("Control characters are not accepted in strings or names; "
              + "pass such values as parameters", at);
        }
      }
    }
  }
}
