package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.ArrayList;
import java.util.List;

/**
 * MariaDB's (and MySQL's) lexer, written from the server's scanner ({@code sql/sql_lex.cc},
 * {@code Lex_input_stream::lex_one_token}) for text run with the session {@code sql_mode} the
 * agent pins: {@code ANSI_QUOTES} ({@code "x"} is a name, as {@code CanonicalSql} writes names)
 * and {@code NO_BACKSLASH_ESCAPES} ({@code '...'} strings end at the first lone quote, a
 * doubled quote is one quote), as {@code MySqlPins.SQL_MODE} sets them.
 *
 * <p>What the server does, rule by rule: whitespace is space, tab, line feed, vertical tab,
 * form feed and carriage return; {@code #} runs to the next line feed; {@code --} is a comment
 * only when a space, a control character or the end of the text follows it (so {@code 1--1}
 * is {@code 1 - -1}), and runs to the next line feed; {@code /* ... *}{@code /} does not nest;
 * {@code /*!...*}{@code /} and {@code /*M!...*}{@code /} are executable comments (their content
 * runs as SQL) and {@code /*+...*}{@code /} holds optimizer hints; names are quoted in
 * backticks (a doubled backtick is one) or, under {@code ANSI_QUOTES}, double quotes; an
 * unquoted name is letters, digits, {@code _} and {@code $}, and may even start with a digit
 * ({@code 1e} and {@code t.1col} are names); a word directly before a quote is a prefix
 * ({@code N'..'}, {@code X'..'}, {@code B'..'}, {@code _utf8mb4'..'}); adjacent strings are
 * one string; {@code @} starts a variable, {@code :=} assigns one.
 *
 * <p>Refused as uncertain or dangerous: executable comments and hints, nested {@code /*},
 * national, hexadecimal, bit and introduced strings ({@code _charset 'x'}, with or without a
 * space), adjacent strings, a backslash in a string (the drivers scan the text for {@code ?}
 * themselves and would read it differently if they ever missed the mode), numbers that run into
 * a name and names that start with a digit, {@code --} directly followed by anything else
 * (other SQL parsers read it as a comment), {@code @} and {@code @@} variables, {@code :=},
 * {@code $}, braces (ODBC escapes), square brackets, lone backslashes, control characters and
 * characters outside ASCII in unquoted names.
 */
final class MySqlLexer implements SqlLexer {

  private static final List<String> OPERATORS = List.of("<=>", "<<", ">>", "<=", ">=", "<>",
      "!=", "||", "&&", "+", "-", "*", "/", "%", "=", "<", ">", "&", "|", "^", "~", "!");

  @Override
  public List<SqlToken> lex(String sql) {
    LexerInput.requireEncodable(sql);
    return new Run(sql).tokens();
  }

  static boolean isSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == 0x0B || c == '\f' || c == '\r';
  }

  private static boolean isControl(char c) {
    return c < 0x20 || c == 0x7f;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** A character the server takes as part of an unquoted name. */
  private static boolean isIdentChar(char c) {
    return isLetter(c) || isDigit(c) || c == '_' || c == '$' || c >= 0x80;
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
        } else if (c == '#') {
          i = lineEnd(i);
        } else if (c == '-' && at(i + 1) == '-' && (i + 2 >= n || isSpace(at(i + 2))
            || isControl(at(i + 2)))) {
          i = lineEnd(i);
        } else if (c == '/' && at(i + 1) == '*') {
          i = blockCommentEnd(i);
        } else {
          return;
        }
      }
    }

    /** The server's line comments end at a line feed only; a carriage return does not. */
    private int lineEnd(int k) {
      int end = s.indexOf('\n', k);
      return end < 0 ? n : end + 1;
    }

    private int blockCommentEnd(int start) {
      char first = at(start + 2);
      if (first == '!' || (first == 'M' && at(start + 3) == '!')) {
        throw LexerInput.refused("Executable comments (/*! ... */, /*M! ... */) are not "
            + "accepted: MySQL and MariaDB run their content as SQL", start);
      }
      if (first == '+') {
        throw LexerInput.refused("Optimizer hints (/*+ ... */) are not accepted: MySQL reads "
            + "them as part of the statement", start);
      }
      int close = s.indexOf("*/", start + 2);
      if (close < 0) {
        throw LexerInput.refused("Unterminated /* comment", start);
      }
      if (s.indexOf("/*", start + 2) >= 0 && s.indexOf("/*", start + 2) < close) {
        throw LexerInput.refused("Nested /* comments are not accepted: MySQL and MariaDB "
            + "end a comment at the first */", start);
      }
      return close + 2;
    }

    private void token() {
      char c = s.charAt(i);
      int start = i;
      if (c == '\'') {
        string(start);
      } else if (c == '"' || c == '`') {
        quotedName(start, c);
      } else if (isDigit(c) || (c == '.' && isDigit(at(i + 1)))) {
        number(start);
      } else if (isLetter(c) || c == '_') {
        word(start);
      } else if (c == '?') {
        i++;
        out.add(new SqlToken(Kind.PARAMETER, start, i, "?"));
      } else if (c == '@') {
        throw LexerInput.refused(at(i + 1) == '@'
            ? "System variables (@@name) are not accepted: they read or change the server's "
              + "settings"
            : "User variables (@name) are not accepted: they keep state in the session", i);
      } else if (c == ':') {
        throw LexerInput.refused(at(i + 1) == '='
            ? "Assignments (:=) are not accepted: they set session variables"
            : "The character ':' is not accepted", i);
      } else if (c == '$') {
        throw LexerInput.refused("The character '$' is not accepted outside quoted names", i);
      } else if (c == '{' || c == '}') {
        throw LexerInput.refused("Braces (ODBC escapes) are not accepted", i);
      } else if (c == '\\') {
        throw LexerInput.refused("A backslash is not accepted outside strings", i);
      } else if (isControl(c)) {
        throw LexerInput.refused("Control characters are not accepted outside strings", i);
      } else if ("(),.;".indexOf(c) >= 0) {
        i++;
        out.add(new SqlToken(Kind.PUNCT, start, i, String.valueOf(c)));
      } else {
        operator(start);
      }
    }

    private void string(int start) {
      StringBuilder value = new StringBuilder();
      int k = start + 1;
      while (true) {
        int close = s.indexOf('\'', k);
        if (close < 0) {
          throw LexerInput.refused("Unterminated quoted string", start);
        }
        value.append(s, k, close);
        if (at(close + 1) == '\'') {
          value.append('\'');
          k = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      if (value.indexOf("\\") >= 0) {
        throw LexerInput.refused("String literals with backslashes are not accepted for "
            + "MySQL and MariaDB (they read them differently depending on settings); pass "
            + "such values as parameters", start);
      }
      if (!out.isEmpty() && out.get(out.size() - 1).kind() == Kind.STRING) {
        throw LexerInput.refused("Two strings in a row are not accepted: MySQL and MariaDB "
            + "join them into one", start);
      }
      if (!out.isEmpty()) {
        SqlToken previous = out.get(out.size() - 1);
        if (previous.kind() == Kind.WORD && previous.value().startsWith("_")) {
          throw LexerInput.refused("Character set introducers (_charset '...') are not "
              + "accepted", previous.begin());
        }
      }
      out.add(new SqlToken(Kind.STRING, start, i, value.toString()));
    }

    private void quotedName(int start, char quote) {
      StringBuilder value = new StringBuilder();
      int k = start + 1;
      while (true) {
        int close = s.indexOf(quote, k);
        if (close < 0) {
          throw LexerInput.refused("Unterminated quoted name", start);
        }
        value.append(s, k, close);
        if (at(close + 1) == quote) {
          value.append(quote);
          k = close + 2;
          continue;
        }
        i = close + 1;
        break;
      }
      if (value.length() == 0) {
        throw LexerInput.refused("Zero-length quoted name", start);
      }
      for (int v = 0; v < value.length(); v++) {
        if (isControl(value.charAt(v))) {
          throw LexerInput.refused("Control characters are not accepted in names", start);
        }
      }
      out.add(new SqlToken(Kind.QUOTED_IDENTIFIER, start, i, value.toString()));
    }

    private void word(int start) {
      int k = start + 1;
      while (k < n && isIdentChar(s.charAt(k))) {
        k++;
      }
      String word = s.substring(start, k);
      for (int v = 0; v < word.length(); v++) {
        char ch = word.charAt(v);
        if (ch >= 0x80) {
          throw LexerInput.refused("Names with characters outside ASCII must be quoted", start);
        }
        if (ch == '$') {
          throw LexerInput.refused("The character '$' is not accepted outside quoted names",
              start + v);
        }
      }
      char next = at(k);
      if (next == '\'' || next == '"' || next == '`') {
        String prefix = word.length() == 1 ? word.toUpperCase(java.util.Locale.ROOT) : "";
        throw LexerInput.refused(switch (prefix) {
          case "N" -> "National strings (N'...') are not accepted";
          case "X" -> "Hexadecimal strings (X'...') are not accepted; pass such values as "
              + "parameters";
          case "B" -> "Bit strings (B'...') are not accepted";
          default -> word.startsWith("_") ? "Character set introducers (_charset'...') are "
              + "not accepted" : "A name directly followed by a quote is not accepted";
        }, start);
      }
      out.add(new SqlToken(Kind.WORD, start, k, word));
      i = k;
    }

    private void number(int start) {
      if (!out.isEmpty()) {
        SqlToken previous = out.get(out.size() - 1);
        if (previous.is(".") || (s.charAt(start) == '.' && previous.end() == start
            && (previous.isName() || previous.is(")")))) {
          // the server reads "t.1e5" as table t, column 1e5
          throw LexerInput.refused("A name after a dot must not start with a digit", start);
        }
      }
      int k = start;
      while (k < n && isDigit(s.charAt(k))) {
        k++;
      }
      if (at(k) == '.') {
        k++;
        while (k < n && isDigit(s.charAt(k))) {
          k++;
        }
      }
      if (at(k) == 'e' || at(k) == 'E') {
        int e = k + 1;
        if (at(e) == '+' || at(e) == '-') {
          e++;
        }
        if (!isDigit(at(e))) {
          throw LexerInput.refused("A number must not run into a name", start);
        }
        k = e;
        while (k < n && isDigit(s.charAt(k))) {
          k++;
        }
      }
      if (k < n && (isIdentChar(s.charAt(k)) || s.charAt(k) == '.')) {
        throw LexerInput.refused("A number must not run into a name (MySQL and MariaDB read "
            + "names that start with digits, and 0x or 0b literals)", start);
      }
      out.add(new SqlToken(Kind.NUMBER, start, k, s.substring(start, k)));
      i = k;
    }

    private void operator(int start) {
      String op = null;
      for (String candidate : OPERATORS) {
        if (s.startsWith(candidate, start)) {
          op = candidate;
          break;
        }
      }
      if (op == null) {
        throw LexerInput.refused("The character '" + s.charAt(start) + "' is not accepted", start);
      }
      if (op.equals("-") && at(start + 1) == '-') {
        // a comment to other SQL readers, two minus signs to the server
        throw LexerInput.refused("'--' must be followed by a space to start a comment; "
            + "MySQL and MariaDB read '--x' as two minus signs", start);
      }
      i = start + op.length();
      out.add(new SqlToken(Kind.OPERATOR, start, i, op));
    }
  }
}
