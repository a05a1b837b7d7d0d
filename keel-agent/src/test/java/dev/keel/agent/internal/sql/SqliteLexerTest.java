package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.sql.SqlToken.Kind;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** SQLite's lexer and the SQLite part of the statement check, without a database. */
class SqliteLexerTest {

  final SqliteLexer lexer = new SqliteLexer();
  final QueryCheck check = new QueryCheck(Dialect.SQLITE,
      new Identifiers(Identifiers.Fold.NONE, "\""), "main");
  final Set<String> tables = Set.of("orders", "regions", "employees");

  private String kinds(String sql) {
    StringBuilder b = new StringBuilder();
    for (SqlToken t : lexer.lex(sql)) {
      b.append(t.kind().name().charAt(0)).append(':').append(t.value()).append(' ');
    }
    return b.toString().strip();
  }

  @Test
  void readsSqlitesQuotingForms() {
    assertThat(kinds("SELECT 'it''s', \"a\"\"b\", `c``d`, [e\"f]"))
        .isEqualTo("W:SELECT S:it's P:, Q:a\"b P:, Q:c`d P:, Q:e\"f");
    assertThatThrownBy(() -> lexer.lex("SELECT x'0aFF'")).hasMessageContaining("Blob literals");
    // brackets have no escape: the first ] ends the name
    assertThatThrownBy(() -> lexer.lex("[a]]")).isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void commentsDoNotNestAndRunToTheLineEnd() {
    assertThat(kinds("SELECT /* a /* b */ 1 -- x\n, 2")).isEqualTo("W:SELECT N:1 P:, N:2");
    assertThatThrownBy(() -> lexer.lex("SELECT 1 /* never closed"))
        .hasMessageContaining("Unterminated /* comment");
    // nested: the first */ ends it, so the second is live text
    assertThat(kinds("SELECT /* /* */ 1")).isEqualTo("W:SELECT N:1");
  }

  @Test
  void numbersAndOperators() {
    assertThat(kinds("0x1F .5 1e3 1.5E-2 a==b a<>b a!=b a<<2 a>>2 a|b a||b"))
        .isEqualTo("N:0x1F N:.5 N:1e3 N:1.5E-2 W:a O:= W:b W:a O:<> W:b W:a O:!= W:b W:a O:<< "
            + "N:2 W:a O:>> N:2 W:a O:| W:b W:a O:|| W:b");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT $a", "SELECT :a", "SELECT @a", "SELECT #a", "SELECT ?1",
      "SELECT a$b", "SELECT 1_000", "SELECT 1abc", "SELECT 'open", "SELECT \"open",
      "SELECT [open", "SELECT `open", "SELECT x'0'", "SELECT x'zz'", "SELECT a -> 'b'",
      "SELECT a ->> 'b'", "SELECT \"\"", "SELECT []", "SELECT é", "SELECT 'a\u0001'",
      "SELECT !a", "SELECT 1 /* x", "SELECT 1\u000b", "SELECT x'41'"})
  void refusesWhatItCannotPlace(String sql) {
    assertThatThrownBy(() -> lexer.lex(sql)).isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void theCanonicalTextQuotesNamesInBackticksSoSqliteNeverReadsThemAsStrings() {
    CheckedQuery q = check.check("SELECT \"name\", [id] FROM \"orders\" WHERE status == ?",
        tables, Set.of());
    assertThat(q.sql()).isEqualTo("SELECT `name`, `id` FROM `orders` WHERE status = ?");
    assertThat(q.parameters()).isEqualTo(1);
  }

  @Test
  void hexNumbersPassTheParser() {
    assertThat(check.check("SELECT 0x1F + 1 FROM orders", tables, Set.of()).sql())
        .isEqualTo("SELECT 0x1F + 1 FROM orders");
  }

  @ParameterizedTest
  @ValueSource(strings = {"ATTACH 'x.db' AS x", "DETACH x", "PRAGMA query_only = 0",
      "SELECT * FROM pragma_table_list", "SELECT * FROM pragma_table_info('orders')",
      "SELECT load_extension('x')", "SELECT readfile('/etc/passwd')",
      "SELECT writefile('/tmp/x', 'y')", "SELECT edit('x')", "SELECT fts3_tokenizer('x')",
      "SELECT sqlite_compileoption_get(1)", "VACUUM INTO '/tmp/x.db'",
      "REPLACE INTO regions VALUES (1, 'x')", "INSERT OR IGNORE INTO regions VALUES (1, 'x')",
      "SELECT * FROM sqlite_master", "SELECT * FROM sqlite_schema", "SELECT * FROM temp.orders",
      "SELECT * FROM dbstat", "ANALYZE", "BEGIN", "END"})
  void refusesSqlitesTraps(String sql) {
    assertThatThrownBy(() -> check.check(sql, tables, Set.of()))
        .isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void acceptsOrdinaryQueries() {
    for (String sql : List.of("SELECT replace(name, 'a', 'b') FROM regions",
        "SELECT sqlite_version()", "SELECT * FROM main.orders WHERE id IN (?, ?)",
        "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) "
            + "SELECT n FROM r")) {
      assertThat(check.check(sql, tables, Set.of()).sql()).isNotBlank();
    }
  }

  @Test
  void everyTokenKindReLexesIdentically() {
    String sql = "SELECT 'a''b', `c`, [d], \"e\", 0x1F, 1.5e3, ? FROM orders";
    List<SqlToken> first = lexer.lex(sql);
    CanonicalSql canonical = CanonicalSql.of(sql, first, lexer);
    assertThat(canonical.tokens()).extracting(SqlToken::kind)
        .containsExactlyElementsOf(first.stream().map(SqlToken::kind).toList());
    assertThat(first.get(1).kind()).isEqualTo(Kind.STRING);
  }
}
