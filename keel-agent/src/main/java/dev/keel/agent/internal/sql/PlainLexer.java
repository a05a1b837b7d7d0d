package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The lexer for an engine the agent has no lexer of its own for: only the part of SQL that
 * every engine reads the same way. Plain ASCII names, {@code "quoted"} names, {@code '...'}
 * strings without backslashes, plain numbers, the common operators and {@code ?}; no comments,
 * no other quoting or escapes, no engine-specific operators. Anything else is refused, since
 * there is no way to know how the engine reads it.
 */
final class PlainLexer implements SqlLexer {

  private static final List<String> OPERATORS = List.of("<=", ">=", "<>", "!=", "||", "+", "-",
      "*", "/", "%", "=", "<", ">");

  private final Identifiers.Fold fold;

  PlainLexer(Identifiers.Fold fold) {
    this.fold = fold;
  }

  @Override
  public List<SqlToken> lex(String s) {
    LexerInput.requireEncodable(s);
    List<SqlToken> out = new ArrayList<>();
    int n = s.length();
    int i = 0;
    while (i < n) {
      char c = s.charAt(i);
      int start = i;
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        i++;
      } else if (s.startsWith("--", i) || s.startsWith("/*", i) || s.startsWith("//", i)) {
        throw LexerInput.refused("Comments are not accepted for this database", i);
      } else if (c == '\'') {
        StringBuilder value = new StringBuilder();
        int k = i + 1;
        while (true) {
          int close = s.indexOf('\'', k);
          if (close < 0) {
            throw LexerInput.refused("Unterminated quoted string", start);
          }
          value.append(s, k, close);
          if (close + 1 < n && s.charAt(close + 1) == '\'') {
            value.append('\'');
            k = close + 2;
            continue;
          }
          i = close + 1;
          break;
        }
        if (value.indexOf("\\") >= 0) {
          throw LexerInput.refused("String literals with backslashes are not accepted for "
              + "this database; pass such values as parameters", start);
        }
        if (!out.isEmpty() && out.get(out.size() - 1).kind() == Kind.STRING) {
          throw LexerInput.refused("Two strings in a row are not accepted", start);
        }
        out.add(new SqlToken(Kind.STRING, start, i, value.toString()));
      } else if (c == '"') {
        StringBuilder value = new StringBuilder();
        int k = i + 1;
        while (true) {
          int close = s.indexOf('"', k);
          if (close < 0) {
            throw LexerInput.refused("Unterminated quoted identifier", start);
          }
          value.append(s, k, close);
          if (close + 1 < n && s.charAt(close + 1) == '"') {
            value.append('"');
            k = close + 2;
            continue;
          }
          i = close + 1;
          break;
        }
        if (value.length() == 0) {
          throw LexerInput.refused("Zero-length quoted identifier", start);
        }
        out.add(new SqlToken(Kind.QUOTED_IDENTIFIER, start, i, value.toString()));
      } else if (isLetter(c) || c == '_') {
        int k = i + 1;
        while (k < n && (isLetter(s.charAt(k)) || isDigit(s.charAt(k)) || s.charAt(k) == '_')) {
          k++;
        }
        if (k < n && s.charAt(k) > 0x7f) {
          throw LexerInput.refused("Names must be plain ASCII for this database", k);
        }
        String word = s.substring(i, k);
        out.add(new SqlToken(Kind.WORD, i, k, switch (fold) {
          case UPPER -> word.toUpperCase(Locale.ROOT);
          case LOWER -> word.toLowerCase(Locale.ROOT);
          case NONE -> word;
        }));
        i = k;
      } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(s.charAt(i + 1)))) {
        int k = i;
        while (k < n && isDigit(s.charAt(k))) {
          k++;
        }
        if (k < n && s.charAt(k) == '.') {
          k++;
          while (k < n && isDigit(s.charAt(k))) {
            k++;
          }
        }
        if (k < n && (s.charAt(k) == 'e' || s.charAt(k) == 'E')) {
          int e = k + 1;
          if (e < n && (s.charAt(e) == '+' || s.charAt(e) == '-')) {
            e++;
          }
          if (e >= n || !isDigit(s.charAt(e))) {
            throw LexerInput.refused("Invalid number", start);
          }
          k = e;
          while (k < n && isDigit(s.charAt(k))) {
            k++;
          }
        }
        if (k < n && (isLetter(s.charAt(k)) || s.charAt(k) == '_' || s.charAt(k) == '.'
            || s.charAt(k) > 0x7f)) {
          throw LexerInput.refused("A number must not run into a name", start);
        }
        out.add(new SqlToken(Kind.NUMBER, i, k, s.substring(i, k)));
        i = k;
      } else if (c == '?') {
        out.add(new SqlToken(Kind.PARAMETER, i, i + 1, "?"));
        i++;
      } else if ("(),.;".indexOf(c) >= 0) {
        out.add(new SqlToken(Kind.PUNCT, i, i + 1, String.valueOf(c)));
        i++;
      } else {
        String op = null;
        for (String candidate : OPERATORS) {
          if (s.startsWith(candidate, i)) {
            op = candidate;
            break;
          }
        }
        if (op == null) {
          throw LexerInput.refused("The character '" + c + "' is not accepted for this "
              + "database", i);
        }
        out.add(new SqlToken(Kind.OPERATOR, i, i + op.length(), op));
        i += op.length();
      }
    }
    return out;
  }

  private static boolean isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }
}
