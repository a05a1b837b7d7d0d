package dev.keel.agent.internal.sql;

import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.parser.CCJSqlParserConstants;
import net.sf.jsqlparser.parser.CCJSqlParserTokenManager;
import net.sf.jsqlparser.parser.SimpleCharStream;
import net.sf.jsqlparser.parser.StringProvider;
import net.sf.jsqlparser.parser.Token;

/**
 * The statement rewritten from its tokens in the one form every reader agrees on: no comments,
 * every string a plain {@code '...'} literal (dollar quotes, escapes, Unicode escapes and
 * continuation lines resolved to their value), every quoted name a plain {@code "..."}, one
 * space wherever the original had whitespace or a comment. This text, not the caller's, is
 * what the syntax check parses and what the database runs, so the parser and the engine read
 * the same statement by construction.
 *
 * <p>Two verifications make that hold rather than hope: the dialect's lexer must read the
 * rewritten text back as exactly the same tokens, and JSqlParser's own lexer must split it at
 * exactly the same places with the same kinds (strings where the engine sees strings, names
 * where it sees names). Any disagreement refuses the statement.
 */
final class CanonicalSql {

  private final String text;
  private final List<SqlToken> tokens;

  private CanonicalSql(String text, List<SqlToken> tokens) {
    this.text = text;
    this.tokens = tokens;
  }

  /** The rewritten text. */
  String text() {
    return text;
  }

  /** The tokens, at their positions in {@link #text()}. */
  List<SqlToken> tokens() {
    return tokens;
  }

  /**
   * Rewrites {@code tokens} of {@code original} (as {@code lexer} read it) and verifies the
   * rewriting.
   *
   * @throws QueryRefusedException when the rewritten text reads differently to the lexer or to
   *     JSqlParser
   */
  static CanonicalSql of(String original, List<SqlToken> tokens, SqlLexer lexer) {
    StringBuilder b = new StringBuilder(original.length() + 16);
    int previousEnd = -1;
    for (SqlToken t : tokens) {
      if (previousEnd >= 0 && t.begin() > previousEnd) {
        b.append(' ');
      }
      b.append(t.kind() == Kind.QUOTED_IDENTIFIER ? lexer.quoteIdentifier(t.value())
          : render(original, t));
      previousEnd = t.end();
    }
    String text = b.toString();
    List<SqlToken> again = lexer.lex(text);
    if (!sameTokens(tokens, again)) {
      throw new QueryRefusedException("The statement could not be read with certainty");
    }
    agreesWithParser(text, again);
    return new CanonicalSql(text, again);
  }

  static String render(String original, SqlToken t) {
    return switch (t.kind()) {
      case STRING -> "'" + t.value().replace("'", "''") + "'";
      case QUOTED_IDENTIFIER -> "\"" + t.value().replace("\"", "\"\"") + "\"";
      case WORD -> original.substring(t.begin(), t.end());
      default -> t.value();
    };
  }

  private static boolean sameTokens(List<SqlToken> a, List<SqlToken> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i).kind() != b.get(i).kind() || !a.get(i).value().equals(b.get(i).value())) {
        return false;
      }
    }
    return true;
  }

  /**
   * JSqlParser must see a token boundary wherever the engine does, a string exactly where the
   * engine sees a string and a quoted name exactly where it sees one. One of its tokens may
   * span several words (it reads {@code NEXT VALUE FOR} as one), nothing else.
   */
  private static void agreesWithParser(String text, List<SqlToken> ours) {
    List<Token> theirs = new ArrayList<>();
    try {
      CCJSqlParserTokenManager lexer = new CCJSqlParserTokenManager(
          new SimpleCharStream(new StringProvider(text)));
      for (Token t = lexer.getNextToken(); t.kind != CCJSqlParserConstants.EOF;
          t = lexer.getNextToken()) {
        if (t.specialToken != null) {
          // a comment to JSqlParser where the engine sees none
          throw new QueryRefusedException("The statement could not be read with certainty");
        }
        theirs.add(t);
      }
    } catch (RuntimeException | Error e) {
      if (e instanceof QueryRefusedException refused) {
        throw refused;
      }
      if (e instanceof VirtualMachineError vm) {
        throw vm;
      }
      throw new QueryRefusedException("The statement could not be read as SQL");
    }
    int o = 0;
    for (Token t : theirs) {
      int begin = t.absoluteBegin - 1;
      int end = t.absoluteEnd - 1;
      if (o >= ours.size() || ours.get(o).begin() != begin) {
        throw uncertain();
      }
      int first = o;
      while (o < ours.size() && ours.get(o).end() < end) {
        o++;
      }
      if (o >= ours.size() || ours.get(o).end() != end) {
        throw uncertain();
      }
      o++;
      boolean single = o - first == 1;
      SqlToken token = ours.get(first);
      boolean theirString = t.kind == CCJSqlParserConstants.S_CHAR_LITERAL;
      boolean theirQuoted = t.kind == CCJSqlParserConstants.S_QUOTED_IDENTIFIER;
      boolean ourString = token.kind() == Kind.STRING || token.kind() == Kind.BIT_STRING;
      boolean ourQuoted = token.kind() == Kind.QUOTED_IDENTIFIER;
      if (single ? theirString != ourString || theirQuoted != ourQuoted
          : theirString || theirQuoted || !allWords(ours, first, o)) {
        throw uncertain();
      }
    }
    if (o != ours.size()) {
      throw uncertain();
    }
  }

  private static boolean allWords(List<SqlToken> tokens, int from, int to) {
    for (int i = from; i < to; i++) {
      if (tokens.get(i).kind() != Kind.WORD) {
        return false;
      }
    }
    return true;
  }

  private static QueryRefusedException uncertain() {
    return new QueryRefusedException("The statement could not be read with certainty: it uses "
        + "a form (an operator, quoting or escape) that the agent's SQL parser reads "
        + "differently from the database");
  }
}
