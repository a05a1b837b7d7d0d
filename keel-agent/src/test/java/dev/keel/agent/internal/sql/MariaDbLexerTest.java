package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.internal.db.Dialect;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The MySQL/MariaDB lexer on its own, case by case from the server's scanner, and the statement
 * check's MySQL traps. {@code MariaDbLexerDifferentialTest} holds the lexer against the real
 * server.
 */
class MariaDbLexerTest {

  static final SqlLexer MY = new MySqlLexer();

  static String tokens(String sql) {
    return LexerTest.tokens(MY, sql);
  }

  static QueryCheck check() {
    return new QueryCheck(Dialect.MYSQL, new Identifiers(Identifiers.Fold.NONE, "`"), "shop");
  }

  @Test
  void hashAndDashDashSpaceAreLineCommentsEndingAtALineFeed() {
    assertThat(tokens("SELECT 1 # x ; y\n, 2")).isEqualTo("Wor:SELECT Num:1 Pun:, Num:2");
    assertThat(tokens("SELECT 1 -- x\n, 2")).isEqualTo("Wor:SELECT Num:1 Pun:, Num:2");
    assertThat(tokens("SELECT 1 --\t\n, 2")).isEqualTo("Wor:SELECT Num:1 Pun:, Num:2");
    assertThat(tokens("SELECT 1 --")).isEqualTo("Wor:SELECT Num:1");
    // a carriage return does not end the server's line comment
    assertThat(tokens("SELECT 1 -- x\r, 2")).isEqualTo("Wor:SELECT Num:1");
    assertThat(tokens("SELECT 1 # x\r; DELETE FROM t")).isEqualTo("Wor:SELECT Num:1");
  }

  @Test
  void dashDashWithoutASpaceIsTwoMinusSignsAndRefused() {
    assertThatThrownBy(() -> MY.lex("SELECT 1--1")).hasMessageContaining("two minus signs");
    assertThatThrownBy(() -> MY.lex("SELECT 1 --x\n; DELETE FROM t"))
        .hasMessageContaining("two minus signs");
    assertThat(tokens("SELECT 1 - -1")).isEqualTo("Wor:SELECT Num:1 Ope:- Ope:- Num:1");
  }

  @Test
  void blockCommentsDoNotNestAndExecutableCommentsAreRefused() {
    assertThat(tokens("SELECT /* a ; b */ 1")).isEqualTo("Wor:SELECT Num:1");
    assertThatThrownBy(() -> MY.lex("SELECT /* a /* b */ 1")).hasMessageContaining("Nested");
    assertThatThrownBy(() -> MY.lex("SELECT /*! 1 */ 2"))
        .hasMessageContaining("Executable comments")
        .hasMessageContaining("run their content as SQL");
    assertThatThrownBy(() -> MY.lex("SELECT /*!50000 1 */ 2"))
        .hasMessageContaining("Executable comments");
    assertThatThrownBy(() -> MY.lex("SELECT /*M!100000 1 */ 2"))
        .hasMessageContaining("Executable comments");
    assertThatThrownBy(() -> MY.lex("SELECT /*+ BKA() */ 2")).hasMessageContaining("hints");
    assertThatThrownBy(() -> MY.lex("SELECT /* x")).hasMessageContaining("Unterminated");
    // a comment opener inside a string is text
    assertThat(tokens("SELECT '/*!', '#', '-- '")).isEqualTo(
        "Wor:SELECT Str:/*! Pun:, Str:# Pun:, Str:-- ");
  }

  @Test
  void backticksAndDoubleQuotesAreNamesWithDoubledQuotes() {
    assertThat(tokens("SELECT `a``b`, \"c\"\"d\", `x\"y` FROM `t`"))
        .isEqualTo("Wor:SELECT Quo:a`b Pun:, Quo:c\"d Pun:, Quo:x\"y Wor:FROM Quo:t");
    assertThatThrownBy(() -> MY.lex("SELECT ``")).hasMessageContaining("Zero-length");
    assertThatThrownBy(() -> MY.lex("SELECT `a")).hasMessageContaining("Unterminated");
  }

  @Test
  void stringsAreReadWithoutBackslashEscapes() {
    assertThat(tokens("SELECT 'it''s', ''")).isEqualTo("Wor:SELECT Str:it's Pun:, Str:");
    assertThatThrownBy(() -> MY.lex("SELECT '\\'; DELETE FROM t; -- '"))
        .hasMessageContaining("backslash");
    assertThatThrownBy(() -> MY.lex("SELECT 'a' 'b'")).hasMessageContaining("Two strings");
    assertThatThrownBy(() -> MY.lex("SELECT 'a")).hasMessageContaining("Unterminated");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT N'x'", "SELECT n'x'", "SELECT X'41'", "SELECT x'41'",
      "SELECT B'1'", "SELECT _utf8mb4'x'", "SELECT _binary 'x'", "SELECT _latin1\n'x'",
      "SELECT 0x41", "SELECT 0b1", "SELECT 1e", "SELECT 1abc", "SELECT t.1c FROM t",
      "SELECT t.`a`.5", "SELECT @a", "SELECT @@version", "SELECT @`a`", "SELECT a := 1",
      "SELECT $a", "SELECT a$b", "SELECT {fn now()}", "SELECT 1 \\ 2", "SELECT [a]",
      "SELECT caf\u00e9", "SELECT 1\u0001", "SELECT 1\u0000", "SELECT abc'x'"})
  void formsThatCannotBePlacedWithCertaintyAreRefused(String sql) {
    assertThatThrownBy(() -> MY.lex(sql)).isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void numbersOperatorsAndParameters() {
    assertThat(tokens("SELECT 1.5e-3, .5, 2 <=> ?, a && b || !c, 1 << 2"))
        .isEqualTo("Wor:SELECT Num:1.5e-3 Pun:, Num:.5 Pun:, Num:2 Ope:<=> Par:? Pun:, "
            + "Wor:a Ope:&& Wor:b Ope:|| Ope:! Wor:c Pun:, Num:1 Ope:<< Num:2");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT * FROM orders INTO OUTFILE '/tmp/x'",
      "SELECT 'x' INTO DUMPFILE '/tmp/x'", "SELECT LOAD_FILE('/etc/passwd')",
      "SELECT SLEEP(1)", "SELECT BENCHMARK(10, 1)", "SET sql_mode = ''", "DO 1",
      "HANDLER orders OPEN", "LOAD DATA INFILE 'x' INTO TABLE orders",
      "SELECT * FROM orders LOCK IN SHARE MODE", "SELECT * FROM orders FOR UPDATE",
      "SELECT sys_exec('id')", "SELECT sys_eval('id')", "SELECT GET_LOCK('a', 1)",
      "SELECT RELEASE_LOCK('a')", "SELECT MASTER_POS_WAIT('a', 1)",
      "SELECT * FROM information_schema.tables", "SELECT * FROM mysql.user",
      "SELECT * FROM performance_schema.threads", "SELECT * FROM sys.version",
      "SELECT shop.f()", "SELECT LAST_INSERT_ID(1)", "SELECT 1 PROCEDURE ANALYSE()",
      "SHOW TABLES", "SELECT spider_direct_sql('x', 't', 'srv')"})
  void mysqlTrapsAreRefused(String sql) {
    assertThatThrownBy(() -> check().check(sql, Set.of("orders"), Set.of()))
        .isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void refusalsSayWhatTheFeatureDoes() {
    assertThatThrownBy(() -> check().check("SELECT * FROM orders INTO OUTFILE '/tmp/x'",
        Set.of("orders"), Set.of())).hasMessageContaining("writes a file on the database "
        + "server");
    assertThatThrownBy(() -> check().check("SELECT LOAD_FILE('/etc/passwd')",
        Set.of("orders"), Set.of())).hasMessageContaining("reads files on the database");
  }

  @Test
  void ordinaryQueriesPassAndAreRewrittenWithStandardQuotes() {
    CheckedQuery q = check().check("SELECT `id`, status /* why */ FROM `orders` # done\n"
        + "WHERE status = 'it''s' AND id > ? ORDER BY id LIMIT 5", Set.of("orders"), Set.of());
    assertThat(q.sql()).isEqualTo("SELECT \"id\", status FROM \"orders\" WHERE status = "
        + "'it''s' AND id > ? ORDER BY id LIMIT 5");
    assertThat(check().check("SELECT CAST(id AS SIGNED), status REGEXP 'a' FROM orders",
        Set.of("orders"), Set.of()).tables()).containsExactly("orders");
  }
}
