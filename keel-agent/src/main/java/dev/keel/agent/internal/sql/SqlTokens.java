package dev.keel.agent.internal.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.CCJSqlParserTokenManager;
import net.sf.jsqlparser.parser.SimpleCharStream;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;

/**
 * The tokens of a statement as JSqlParser's own lexer reads them: comments are gone, string
 * literals and quoted identifiers are single tokens. Checks that look for words (a write
 * keyword, a function call, a locking clause) run over these tokens, so text inside a string
 * or a comment can neither trigger nor hide them.
 */
public final class SqlTokens {

  private static final Pattern WORD = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

  /** One token: its kind, its text and where it starts and ends in the statement. */
  public record Tok(int kind, String image, int begin, int end) {

    /** Returns true for an unquoted word (a keyword or a plain identifier). */
    public boolean isWord() {
      return kind != CCJSqlParserConstants.S_QUOTED_IDENTIFIER
          && kind != CCJSqlParserConstants.S_CHAR_LITERAL && WORD.matcher(image).matches();
    }

    /** Returns the upper-cased text of a word. */
    public String upper() {
      return image.toUpperCase(Locale.ROOT);
    }

    /** Returns true for a quoted identifier. */
    public boolean isQuotedIdentifier() {
      return kind == CCJSqlParserConstants.S_QUOTED_IDENTIFIER;
    }

    /** Returns true for a string literal, whatever its prefix. */
    public boolean isString() {
      return kind == CCJSqlParserConstants.S_CHAR_LITERAL;
    }

    /** Returns true for a dollar-quoted string. */
    public boolean isDollarQuoted() {
      return kind == CCJSqlParserConstants.S_DOLLAR_QUOTED_STRING
          || (kind == CCJSqlParserConstants.S_CHAR_LITERAL && image.startsWith("$"));
    }

    /** Returns true when this token is exactly {@code text}. */
    public boolean is(String text) {
      return image.equals(text);
    }
  }

  private SqlTokens() {}

  /**
   * Splits {@code sql} into tokens.
   *
   * @throws QueryRefusedException when the lexer cannot read it
   */
  public static List<Tok> of(String sql) {
    List<Tok> tokens = new ArrayList<>();
    try {
      CCJSqlParserTokenManager lexer = new CCJSqlParserTokenManager(
          new SimpleCharStream(new StringProvider(sql)));
      for (Token t = lexer.getNextToken(); t.kind != CCJSqlParserConstants.EOF;
          t = lexer.getNextToken()) {
        // JSqlParser counts positions from 1
        tokens.add(new Tok(t.kind, t.image, t.absoluteBegin - 1, t.absoluteEnd - 1));
      }
    } catch (RuntimeException | Error e) {
      // TokenMgrException is an Error in JavaCC; either way the text is not SQL we can read
      if (e instanceof VirtualMachineError vm) {
        throw vm;
      }
      throw new QueryRefusedException("The statement could not be read as SQL");
    }
    return tokens;
  }
}
