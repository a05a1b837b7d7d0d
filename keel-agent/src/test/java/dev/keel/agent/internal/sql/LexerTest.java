package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The dialect lexers on their own, case by case from the engines' scanners. The differential
 * tests ({@code LexerDifferentialTest}) hold them against the real engines on generated text.
 */
class LexerTest {

  static final SqlLexer PG = new PostgresLexer();
  static final SqlLexer H2 = new H2Lexer(Identifiers.Fold.LOWER);

  static String tokens(SqlLexer lexer, String sql) {
    return lexer.lex(sql).stream().map(t -> t.kind().name().charAt(0) + t.kind().name()
        .substring(1, 3).toLowerCase() + ":" + t.value()).collect(Collectors.joining(" "));
  }

  @Test
  void postgresReadsDoubleSlashStarAsDivisionThenComment() {
    assertThat(tokens(PG, "SELECT 4 //* x */ 2")).isEqualTo("Wor:select Num:4 Ope:/ Num:2");
    assertThat(tokens(PG, "SELECT 4 // 2")).isEqualTo("Wor:select Num:4 Ope:// Num:2");
    assertThat(tokens(PG, "SELECT 1 +--x\n2")).isEqualTo("Wor:select Num:1 Ope:+ Num:2");
    assertThat(tokens(PG, "SELECT a=-1, b@-1, c<=-1"))
        .isEqualTo("Wor:select Wor:a Ope:= Ope:- Num:1 Pun:, Wor:b Ope:@- Num:1 Pun:, "
            + "Wor:c Ope:<= Ope:- Num:1");
  }

  @Test
  void h2ReadsDoubleSlashAsALineComment() {
    assertThat(tokens(H2, "SELECT 4 //* x */ 2\n, 3")).isEqualTo("Wor:select Num:4 Pun:, Num:3");
  }

  @Test
  void postgresCommentsNest() {
    assertThat(tokens(PG, "SELECT /* a /* b */ still */ 1")).isEqualTo("Wor:select Num:1");
    assertThat(tokens(H2, "SELECT /* a /* b */ still */ 1")).isEqualTo("Wor:select Num:1");
    assertThatThrownBy(() -> PG.lex("SELECT /* a /* b */ 1")).hasMessageContaining(
        "Unterminated");
  }

  @Test
  void taggedDollarQuotesEndAtTheFirstIdenticalDelimiter() {
    assertThat(tokens(PG, "SELECT $a$ || ' $a$ , (SELECT 1) -- '"))
        .isEqualTo("Wor:select Str: || '  Pun:, Pun:( Wor:select Num:1 Pun:)");
    assertThat(tokens(PG, "SELECT $a$x$b$y$a$, $$$$")).isEqualTo("Wor:select Str:x$b$y "
        + "Pun:, Str:");
    assertThat(tokens(PG, "SELECT abc$def$ FROM t")).isEqualTo("Wor:select Wor:abc$def$ "
        + "Wor:from Wor:t");
    assertThatThrownBy(() -> H2.lex("SELECT $a$ x $a$")).hasMessageContaining("$");
    assertThat(tokens(H2, "SELECT $$a$b$$")).isEqualTo("Wor:select Str:a$b");
  }

  @Test
  void postgresStringsContinueOnlyAcrossALineBreak() {
    assertThat(tokens(PG, "SELECT 'a'\n 'b'")).isEqualTo("Wor:select Str:ab");
    assertThat(tokens(PG, "SELECT 'a' -- c\n'b'")).isEqualTo("Wor:select Str:ab");
    assertThat(tokens(PG, "SELECT 'a' 'b'")).isEqualTo("Wor:select Str:a Str:b");
    assertThat(tokens(PG, "SELECT 'a' /* c */\n'b'")).isEqualTo("Wor:select Str:a Str:b");
    assertThat(tokens(H2, "SELECT 'a' 'b'")).isEqualTo("Wor:select Str:ab");
    assertThat(tokens(H2, "SELECT 'a' /* c */ 'b'")).isEqualTo("Wor:select Str:ab");
    assertThat(tokens(H2, "SELECT 'a' -- c\n'b'")).isEqualTo("Wor:select Str:a Str:b");
  }

  @Test
  void escapeStringsAreDecodedAsPostgresDoes() {
    assertThat(tokens(PG, "SELECT E'''' ; DELETE")).isEqualTo("Wor:select Str:' Pun:; "
        + "Wor:delete");
    assertThat(tokens(PG, "SELECT E'a\\x41\\101\\u0042\\q', 'a\\'")).isEqualTo(
        "Wor:select Str:aAABq Pun:, Str:a\\");
    assertThatThrownBy(() -> PG.lex("SELECT E'\\xff'")).hasMessageContaining("byte");
    assertThatThrownBy(() -> PG.lex("SELECT E'\\0'")).hasMessageContaining("NUL");
    // H2 knows no E strings: E is a name, the string is standard
    assertThat(tokens(H2, "SELECT E'\\'")).isEqualTo("Wor:select Wor:e Str:\\");
  }

  /**
   * Texts the JDBC driver's own scanner reads differently from the server, found by
   * {@code LexerDifferentialTest}: the driver would split them at a ';' or number a '?' the
   * server takes for part of a comment or string (or the reverse), so they are refused.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      // the driver closes "/*/" on the '*' it opened with
      "SELECT 1 /*/ ; SELECT 2; -- */",
      "SELECT 1 /*/ ? */",
      // the driver starts no dollar quote after a digit
      "SELECT 1$a$;$a$",
      "sELect 0$_1$ ; SELECT 1 $_1$",
      // \' in E strings: after a doubled quote, in a continuation and after $ or a quote the
      // driver reads the rest as a standard string
      "SELECT E'x''1F\\'', '{fn now()}'",
      "values (E''\n-- c\n  'U&\\'' ,'\r\n')",
      "SELECT E'a'\n'\\' ; SELECT 2 --'",
      "SELECT $$x$$e'\\' ; SELECT 2 --'",
      "SELECT E'\\'' ; DELETE FROM orders; --'"})
  void postgresRefusesWhatTheDriverReadsDifferently(String sql) {
    assertThatThrownBy(() -> PG.lex(sql)).isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void postgresAcceptsTheNeighboursOfThoseForms() {
    assertThat(tokens(PG, "SELECT 1 /**/ + 2, 1 /* / */ + 3")).isEqualTo(
        "Wor:select Num:1 Ope:+ Num:2 Pun:, Num:1 Ope:+ Num:3");
    assertThat(tokens(PG, "SELECT 1 $a$x$a$")).isEqualTo("Wor:select Num:1 Str:x");
    assertThat(tokens(PG, "SELECT E'a\\\\', E'a''b\\n'\n'c\\t'")).isEqualTo(
        "Wor:select Str:a\\ Pun:, Str:a'b\nc\t");
  }

  @Test
  void unicodeFormsTakeTheirEscapeCharacter() {
    assertThat(tokens(PG, "SELECT U&'d\\0061t\\+000061', U&\"s!0065\" UESCAPE '!'"))
        .isEqualTo("Wor:select Str:data Pun:, Quo:se");
    assertThat(tokens(H2, "SELECT U&'d\\0061t\\+000061', U&\"s!0065\" UESCAPE '!'"))
        .isEqualTo("Wor:select Str:data Pun:, Quo:se");
    assertThatThrownBy(() -> PG.lex("SELECT U&'\\zzzz'")).hasMessageContaining("Unicode");
    assertThatThrownBy(() -> PG.lex("SELECT U&'x' UESCAPE '+'")).hasMessageContaining(
        "escape character");
    // H2 never decodes a U& form right after another one (LexerDifferentialTest found
    // "FROM U&\"\\0072egions\" u&\"\\00717\"" naming the alias by its escapes)
    assertThatThrownBy(() -> H2.lex("SELECT 1 FROM U&\"\\0072egions\" u&\"\\00717\""))
        .isInstanceOf(QueryRefusedException.class);
    assertThatThrownBy(() -> H2.lex("SELECT U&'\\0041' U&\"\\00F1\" FROM t")).isInstanceOf(
        QueryRefusedException.class);
    assertThat(tokens(H2, "SELECT U&'\\0041' UESCAPE '\\', U&\"\\00F1\"")).isEqualTo(
        "Wor:select Str:A Pun:, Quo:\u00f1");
    // the server takes one byte only (strlen): an escape character beyond ASCII fails there
    assertThatThrownBy(() -> PG.lex("SELECT U&'x\u00e90041' UESCAPE '\u00e9'"))
        .hasMessageContaining("escape character");
  }

  @Test
  void identifiersFoldAndTruncateAsTheEngineDoes() {
    assertThat(tokens(PG, "SELECT Abc, \"Abc\", \"a\"\"b\"")).isEqualTo(
        "Wor:select Wor:abc Pun:, Quo:Abc Pun:, Quo:a\"b");
    String longName = "x".repeat(70);
    assertThat(PG.lex(longName).get(0).value()).hasSize(63);
    assertThat(tokens(new H2Lexer(Identifiers.Fold.UPPER), "select Abc, `Abc`, \"Abc\""))
        .isEqualTo("Wor:SELECT Wor:ABC Pun:, Quo:ABC Pun:, Quo:Abc");
  }

  @Test
  void postgresNonAsciiIsPartOfNames() {
    // U+00A0 is a letter byte to PostgreSQL, not whitespace
    assertThat(PG.lex("SELECT\u00a0secrets")).hasSize(1);
    assertThat(H2.lex("SELECT\u00a0secrets")).hasSize(2);
  }

  @Test
  void parametersAreTheDriversQuestionMarks() {
    assertThat(tokens(PG, "SELECT * FROM t WHERE a<?")).endsWith("Ope:< Par:?");
    assertThatThrownBy(() -> PG.lex("SELECT ??")).isInstanceOf(QueryRefusedException.class);
    assertThatThrownBy(() -> PG.lex("SELECT ?1")).isInstanceOf(QueryRefusedException.class);
    assertThatThrownBy(() -> PG.lex("SELECT $1")).isInstanceOf(QueryRefusedException.class);
    assertThatThrownBy(() -> H2.lex("SELECT ?1")).isInstanceOf(QueryRefusedException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT 1abc", "SELECT 0x1F", "SELECT 1_000", "SELECT 1e",
      "SELECT 'unterminated", "SELECT \"\"", "SELECT {fn x()}", "SELECT \\x", "SELECT 1..2",
      "SELECT N'x'", "SELECT \u000b1", "SELECT $", "SELECT $a", "SELECT '\u0000'",
      "SELECT '\ud800'"})
  void postgresRefusesWhatItCannotPlace(String sql) {
    assertThatThrownBy(() -> PG.lex(sql)).isInstanceOf(QueryRefusedException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT 1abc", "SELECT 0x1F", "SELECT 1_000", "SELECT 10L",
      "SELECT @x", "SELECT x := 1", "SELECT {fn x()}", "SELECT #x", "SELECT ??(1??)",
      "SELECT X'1 F'", "SELECT $1", "SELECT 'unterminated", "SELECT /* open"})
  void h2RefusesWhatItCannotPlace(String sql) {
    assertThatThrownBy(() -> H2.lex(sql)).isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void thePlainLexerTakesOnlyWhatEveryEngineReadsAlike() {
    SqlLexer plain = new PlainLexer(Identifiers.Fold.NONE);
    assertThat(tokens(plain, "SELECT a, \"B\" FROM t WHERE x >= ? AND y <> 'it''s'"))
        .isEqualTo("Wor:SELECT Wor:a Pun:, Quo:B Wor:FROM Wor:t Wor:WHERE Wor:x Ope:>= Par:? "
            + "Wor:AND Wor:y Ope:<> Str:it's");
    for (String sql : List.of("SELECT 1 -- c", "SELECT 'a\\'", "SELECT `x`", "SELECT $$x$$",
        "SELECT x::int", "SELECT 'a' 'b'", "SELECT [x]")) {
      assertThatThrownBy(() -> plain.lex(sql)).as(sql)
          .isInstanceOf(QueryRefusedException.class);
    }
  }
}
