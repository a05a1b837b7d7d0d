package dev.keel.agent.internal.sql;

import java.util.Locale;

/**
 * One token of a statement as the database engine itself reads it. Comments and whitespace are
 * not tokens; every string and quoted identifier is one token whatever its form (escapes,
 * dollar quotes, continuation lines), with its value decoded as the engine decodes it.
 *
 * @param kind what the engine sees here
 * @param begin where it starts in the text the lexer was given
 * @param end where it ends (exclusive)
 * @param value the decoded content: a string's characters, an identifier's name (quoted ones
 *     exactly, unquoted ones folded as the engine folds them), else the token's text
 */
public record SqlToken(Kind kind, int begin, int end, String value) {

  /** What a token is to the engine. */
  public enum Kind {
    /** An unquoted word: a keyword or an identifier. */
    WORD,
    /** A quoted identifier ({@code "x"}, {@code U&"x"}, H2's backtick form). */
    QUOTED_IDENTIFIER,
    /** A character string in any of its forms. */
    STRING,
    /** A bit or binary string ({@code B'0101'}, {@code X'1F'}); its value is its text. */
    BIT_STRING,
    /** A number. */
    NUMBER,
    /** An operator ({@code +}, {@code ||}, {@code ::}, {@code <=}, {@code @>}...). */
    OPERATOR,
    /** A parameter placeholder ({@code ?}). */
    PARAMETER,
    /** Punctuation: {@code ( ) [ ] , ; .}. */
    PUNCT
  }

  /** Returns true for an unquoted word equal to {@code keyword}, ignoring case. */
  public boolean isKeyword(String keyword) {
    return kind == Kind.WORD && value.equalsIgnoreCase(keyword);
  }

  /** Returns true for punctuation or an operator that is exactly {@code text}. */
  public boolean is(String text) {
    return (kind == Kind.PUNCT || kind == Kind.OPERATOR) && value.equals(text);
  }

  /** Returns true for a name: an unquoted word or a quoted identifier. */
  public boolean isName() {
    return kind == Kind.WORD || kind == Kind.QUOTED_IDENTIFIER;
  }

  /** Returns the value in lower case (for comparisons that ignore case). */
  public String lower() {
    return value.toLowerCase(Locale.ROOT);
  }
}
