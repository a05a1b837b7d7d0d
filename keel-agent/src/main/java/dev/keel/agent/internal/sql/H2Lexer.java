package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * H2's lexer, written from its tokenizer ({@code org.h2.command.Tokenizer}, 2.4) for the
 * REGULAR compatibility mode (the agent refuses to start on another).
 *
 * <p>What H2 does: whitespace is any character up to the space and Unicode space separators;
 * {@code --} and {@code //} run to the end of the line, {@code /* *}{@code /} comments nest;
 * strings are {@code '...'} with {@code ''} for a quote, {@code N'...'}, {@code U&'...'} with an
 * optional {@code UESCAPE}, and {@code $$...$$} (no tags: {@code $a$} is two parameters); a
 * string continues into the next {@code '...'} after any whitespace and {@code /*} or
 * {@code //} comments, on the same line too, but not after a {@code --} comment; identifiers are
 * {@code "..."}, backticks and {@code U&"..."}; unquoted names are Java identifiers and fold as
 * the database's settings say.
 *
 * <p>Refused as uncertain or as state a query has no business touching: {@code $} parameters,
 * a {@code U&} form right after another one (H2 never decodes the second), indexed
 * {@code ?1} parameters, {@code ??(} trigraphs, {@code @} variables and {@code :=},
 * JDBC escapes ({@code {fn ...}}), {@code X'...'} with spaces or continuation, numbers with
 * underscores, a radix prefix, an {@code L} suffix or a name right after them.
 */
final class H2Lexer implements SqlLexer {

  private final Identifiers.Fold fold;

  H2Lexer(Identifiers.Fold fold) {
    this.fold = fold;
  }

  @Override
  public List<SqlToken> lex(String sql) {
    LexerInput.requireEncodable(sql);
    return new Run(sql).tokens();
  }

  String foldName(String name) {
    return switch (fold) {
      case UPPER -> name.toUpperCase(Locale.ENGLISH);
      case LOWER -> name.toLowerCase(Locale.ENGLISH);
      case NONE -> name;
    };
  }

  /** H2 skips these between tokens. */
  static boolean isSkipped(int cp) {
    return cp <= ' ' || Character.isSpaceChar(cp);
  }

  /** One pass over one text. */
  private final class Run {
    private final String s;
    private final int n;
    private final List<SqlToken> out = new ArrayList<>();
    private final List<Integer> unicodeTokens = new ArrayList<>();
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
        int cp = s.codePointAt(i);
        if (isSkipped(cp)) {
          i += Character.charCount(cp);
        } else if (s.startsWith("--", i) || s.startsWith("//", i)) {
          i = lineEnd(i + 2);
        } else if (s.startsWith("/*", i)) {
          i = blockCommentEnd(i);
        } else {
          token(cp);
        }
      }
      applyUescape();
      return out;
    }

    private int lineEnd(int k) {
      while (k < n && s.charAt(k) != '\n' && s.charAt(k) != '\r') {
        k++;
      }
      return k;
    }

    private int blockCommentEnd(int start) {
      int depth = 1;
      int k = start + 2;
      while (depth > 0) {
        if (k >= n) {
          throw LexerInput.refused("Unterminated /* comment", start);
        }
        if (s.startsWith("*/", k)) {
          depth--;
          k += 2;
        } else if (s.startsWith("/*", k)) {
          depth++;
          k += 2;
        } else {
          k++;
        }
      }
      return k;
    }

    private void add(Kind kind, int start, int end, String value) {
      out.add(new SqlToken(kind, start, end, value));
      i = end;
    }

    private void token(int cp) {
      int start = i;
      char c = s.charAt(i);
      char next = at(i + 1);
      switch (c) {
        case '!' -> {
          if (next == '=' || next == '~') {
            add(Kind.OPERATOR, start, i + 2, s.substring(start, i + 2));
          } else {
            throw LexerInput.refused("'!' is not accepted here", i);
          }
        }
        case '"', '`' -> quotedIdentifier(start, i, c, false);
        case '$' -> {
          if (next != '$') {
            throw LexerInput.refused("$ parameters are not accepted; use ?", i);
          }
          int close = s.indexOf("$$", i + 2);
          if (close < 0) {
            throw LexerInput.refused("Unterminated dollar-quoted string", i);
          }
          add(Kind.STRING, start, close + 2, s.substring(i + 2, close));
        }
        case '&' -> {
          if (next != '&') {
            throw LexerInput.refused("'&' is not accepted here", i);
          }
          add(Kind.OPERATOR, start, i + 2, "&&");
        }
        case '\'' -> string(start, i);
        case '(', ')', ',', ';', '[', ']' -> add(Kind.PUNCT, start, i + 1, String.valueOf(c));
        case '%', '*', '+', '-', '/', '=', '~' -> add(Kind.OPERATOR, start, i + 1,
            String.valueOf(c));
        case '.' -> {
          if (next >= '0' && next <= '9') {
            number();
          } else if (next == '.') {
            throw LexerInput.refused("'..' is not accepted", i);
          } else {
            add(Kind.PUNCT, start, i + 1, ".");
          }
        }
        case ':' -> {
          if (next == ':') {
            add(Kind.OPERATOR, start, i + 2, "::");
          } else if (next == '=') {
            throw LexerInput.refused("Assignments (:=) are not accepted", i);
          } else {
            add(Kind.PUNCT, start, i + 1, ":");
          }
        }
        case '<' -> add(Kind.OPERATOR, start, next == '=' || next == '>' ? i + 2 : i + 1,
            s.substring(start, next == '=' || next == '>' ? i + 2 : i + 1));
        case '>' -> add(Kind.OPERATOR, start, next == '=' ? i + 2 : i + 1,
            s.substring(start, next == '=' ? i + 2 : i + 1));
        case '?' -> {
          if (next == '?') {
            throw LexerInput.refused("'??' is not accepted", i);
          }
          if (next >= '0' && next <= '9') {
            throw LexerInput.refused("Indexed parameters (?1) are not accepted; use ?", i);
          }
          add(Kind.PARAMETER, start, i + 1, "?");
        }
        case '|' -> {
          if (next != '|') {
            throw LexerInput.refused("'|' is not accepted here", i);
          }
          add(Kind.OPERATOR, start, i + 2, "||");
        }
        case '@' -> throw LexerInput.refused("Variables (@name) are not accepted", i);
        case '{', '}' -> throw LexerInput.refused("JDBC escapes ({...}) are not accepted", i);
        case '#' -> throw LexerInput.refused("'#' is not accepted here", i);
        default -> {
          if (c >= '0' && c <= '9') {
            number();
          } else if ((c == 'N' || c == 'n') && next == '\'') {
            string(start, i + 1);
          } else if ((c == 'U' || c == 'u') && next == '&' && (at(i + 2) == '\''
              || at(i + 2) == '"')) {
            unicodeTokens.add(out.size());
            if (at(i + 2) == '\'') {
              string(start, i + 2);
            } else {
              quotedIdentifier(start, i + 2, '"', true);
            }
          } else if ((c == 'X' || c == 'x') && next == '\'') {
            binary(start);
          } else if (c == '_' || (c < 0x80 && Character.isLetter(c))
              || (c >= 0x80 && Character.isJavaIdentifierStart(cp))) {
            identifier(start);
          } else {
            throw LexerInput.refused("The character '" + new String(Character.toChars(cp))
                + "' is not accepted here", i);
          }
        }
      }
    }

    private void identifier(int start) {
      int k = start + Character.charCount(s.codePointAt(start));
      while (k < n) {
        int cp = s.codePointAt(k);
        if (!Character.isJavaIdentifierPart(cp)) {
          break;
        }
        k += Character.charCount(cp);
      }
      add(Kind.WORD, start, k, foldName(s.substring(start, k)));
    }

    private void number() {
      int start = i;
      int k = i;
      if (s.charAt(k) == '0' && "bBoOxX".indexOf(at(k + 1)) >= 0) {
        throw LexerInput.refused("Numbers with a radix prefix are not accepted", k);
      }
      while (at(k) >= '0' && at(k) <= '9') {
        k++;
      }
      if (at(k) == '.') {
        k++;
        while (at(k) >= '0' && at(k) <= '9') {
          k++;
        }
      }
      if (at(k) == 'e' || at(k) == 'E') {
        int e = k + 1;
        if (at(e) == '+' || at(e) == '-') {
          e++;
        }
        if (!(at(e) >= '0' && at(e) <= '9')) {
          throw LexerInput.refused("Invalid number", start);
        }
        k = e;
        while (at(k) >= '0' && at(k) <= '9') {
          k++;
        }
      }
      if (k < n && (Character.isJavaIdentifierPart(s.codePointAt(k)) || s.charAt(k) == '.')) {
        throw LexerInput.refused("A number must not run into a name, '.' or '_'", start);
      }
      add(Kind.NUMBER, start, k, s.substring(start, k));
    }

    /** A {@code '...'} string whose first quote is at {@code quote}, with continuations. */
    private void string(int start, int quote) {
      StringBuilder value = new StringBuilder();
      int k = quote;
      int end;
      while (true) {
        int close = s.indexOf('\'', k + 1);
        if (close < 0) {
          throw LexerInput.refused("Unterminated quoted string", start);
        }
        value.append(s, k + 1, close);
        k = close + 1;
        while (at(k) == '\'' && k < n) {
          close = s.indexOf('\'', k + 1);
          if (close < 0) {
            throw LexerInput.refused("Unterminated quoted string", start);
          }
          value.append(s, k, close);
          k = close + 1;
        }
        end = k;
        int after = skipWhitespace(k);
        if (after < n && s.charAt(after) == '\'') {
          k = after;
          continue;
        }
        break;
      }
      // a U& string is decoded by applyUescape once its escape character is known
      add(Kind.STRING, start, end, value.toString());
    }

    /** H2's skipWhitespace: Character.isWhitespace and the / comments, not --. */
    private int skipWhitespace(int k) {
      while (k < n) {
        int cp = s.codePointAt(k);
        if (!Character.isWhitespace(cp)) {
          if (cp == '/' && at(k + 1) == '*') {
            k = blockCommentEnd(k);
            continue;
          }
          if (cp == '/' && at(k + 1) == '/') {
            k = lineEnd(k + 2);
            continue;
          }
          break;
        }
        k += Character.charCount(cp);
      }
      return k;
    }

    private void binary(int start) {
      int close = s.indexOf('\'', start + 2);
      if (close < 0) {
        throw LexerInput.refused("Unterminated binary string", start);
      }
      String body = s.substring(start + 2, close);
      for (int j = 0; j < body.length(); j++) {
        if (LexerInput.hex(body.charAt(j)) < 0) {
          throw LexerInput.refused("Binary strings must hold only hex digits", start);
        }
      }
      if (body.length() % 2 != 0) {
        throw LexerInput.refused("Binary strings must hold whole bytes", start);
      }
      int after = skipWhitespace(close + 1);
      if (after < n && s.charAt(after) == '\'') {
        throw LexerInput.refused("Binary strings continued over several parts are not "
            + "accepted", start);
      }
      add(Kind.BIT_STRING, start, close + 1, "x'" + body + "'");
    }

    private void quotedIdentifier(int start, int quote, char q, boolean unicode) {
      StringBuilder value = new StringBuilder();
      int k = quote;
      while (true) {
        int close = s.indexOf(q, k + 1);
        if (close < 0) {
          throw LexerInput.refused("Unterminated quoted identifier", start);
        }
        value.append(s, k + 1, close);
        k = close + 1;
        if (at(k) == q && k < n) {
          value.append(q);
          continue;
        }
        break;
      }
      if (value.length() == 0) {
        throw LexerInput.refused("Zero-length quoted identifier", start);
      }
      String name = q == '`' ? foldName(value.toString()) : value.toString();
      add(Kind.QUOTED_IDENTIFIER, start, k, name);
    }

    /** H2's second pass: decode U& forms, with the escape of a following UESCAPE 'c'. */
    private void applyUescape() {
      for (int u = 1; u < unicodeTokens.size(); u++) {
        if (unicodeTokens.get(u) == unicodeTokens.get(u - 1) + 1) {
          // H2 looks at the token after a U& form for its UESCAPE and then goes on after that
          // token, so a U& form right after another one is never decoded (found by
          // LexerDifferentialTest: U&"a" U&"b" names b by its escapes, as written)
          throw LexerInput.refused("A Unicode form right after another one is not accepted",
              out.get(unicodeTokens.get(u)).begin());
        }
      }
      for (int u = unicodeTokens.size() - 1; u >= 0; u--) {
        int index = unicodeTokens.get(u);
        SqlToken token = out.get(index);
        int escape = '\\';
        int end = token.end();
        boolean clause = index + 1 < out.size() && out.get(index + 1).kind() == Kind.WORD
            && s.substring(out.get(index + 1).begin(), out.get(index + 1).end())
                .equalsIgnoreCase("UESCAPE");
        if (clause) {
          SqlToken e = index + 2 < out.size() ? out.get(index + 2) : null;
          String v = e == null || e.kind() != Kind.STRING || s.charAt(e.begin()) != '\''
              ? null : e.value();
          if (v == null || v.codePointCount(0, v.length()) != 1) {
            throw LexerInput.refused("UESCAPE must be followed by a one-character string",
                token.begin());
          }
          escape = v.codePointAt(0);
          if (Character.isWhitespace(escape) || LexerInput.hex((char) escape) >= 0
              || escape == '"' || escape == '\'' || escape == '+') {
            throw LexerInput.refused("Invalid Unicode escape character", token.begin());
          }
          end = e.end();
          out.remove(index + 2);
          out.remove(index + 1);
        }
        String decoded = Unicode.decode(token.value(), escape, token.begin());
        if (token.kind() == Kind.QUOTED_IDENTIFIER && decoded.isEmpty()) {
          throw LexerInput.refused("Zero-length quoted identifier", token.begin());
        }
        out.set(index, new SqlToken(token.kind(), token.begin(), end, decoded));
      }
    }
  }
}
