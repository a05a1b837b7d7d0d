package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The hostile statements of {@link HostileStatementsTest} and SQLite's own traps, sent to the
 * {@code query} tool over real HTTP as the {@code analyst}, on a real SQLite file: each is
 * refused or bounded, no answer names anything hidden, and afterwards the file is byte for byte
 * what it was and no file appeared beside it.
 */
class SqliteHostileStatementsTest {

  static TestSqlite file;
  static String before;
  static List<String> filesBefore;
  static AgentServer server;
  static AgentClient analyst;

  /** Generic cases whose SQLite answer differs: refused, not bounded. */
  static final List<String> REFUSED_ON_SQLITE = List.of(
      // $ starts a parameter on SQLite
      "SELECT $$;DELETE FROM orders;$$",
      // SQLite has no repeat(); the error is the answer
      "SELECT repeat('x', 100000) FROM orders");

  static List<String> sqliteCases(String dir) {
    return List.of(
        "R|ATTACH '/tmp/x.db' AS x",
        "R|ATTACH DATABASE '" + dir + "/evil.db' AS evil",
        "R|DETACH DATABASE main",
        "R|SELECT sqlite_attach('" + dir + "/evil.db', 'evil', NULL)",
        "R|SELECT load_extension('/tmp/evil.so')",
        "R|SELECT load_extension('libc.so.6', 'system')",
        "R|PRAGMA query_only=0",
        "R|PRAGMA query_only = OFF",
        "R|PRAGMA writable_schema=1",
        "R|PRAGMA journal_mode=WAL",
        "R|PRAGMA table_info(audit_log)",
        "R|SELECT * FROM pragma_table_info('audit_log')",
        "R|SELECT * FROM pragma_table_list",
        "R|SELECT name FROM pragma_table_list()",
        "R|SELECT * FROM main.pragma_index_list('audit_log')",
        "R|VACUUM INTO '" + dir + "/copy.db'",
        "R|VACUUM",
        "R|ANALYZE",
        "R|REINDEX",
        "R|SELECT * FROM sqlite_master",
        "R|SELECT * FROM sqlite_schema",
        "R|SELECT * FROM main.sqlite_master",
        "R|SELECT * FROM sqlite_temp_master",
        "R|SELECT * FROM temp.sqlite_schema",
        "R|SELECT sql FROM sqlite_schema WHERE name = 'audit_log'",
        "R|SELECT * FROM sqlite_sequence",
        "R|SELECT * FROM dbstat",
        "R|SELECT * FROM temp.orders",
        "R|SELECT * FROM orders WHERE id = $id",
        "R|SELECT * FROM orders WHERE id = :id",
        "R|SELECT * FROM orders WHERE id = @id",
        "R|SELECT * FROM orders WHERE id = ?1",
        "R|SELECT * FROM [audit_log]",
        "R|SELECT * FROM `audit_log`",
        "R|SELECT * FROM [main].[audit_log]",
        "R|SELECT [salary] FROM employees",
        "R|SELECT `salary` FROM employees",
        // DQS: SQLite would read a double-quoted name that matches nothing as the string 'salary'
        "R|SELECT \"salary\" FROM employees",
        "R|SELECT \"email\", \"signup_date\" FROM customers",
        "R|SELECT * FROM orders /* unterminated",
        "R|SELECT 1 /* ; DELETE FROM orders",
        "R|SELECT 1 /* nested /* */ ; DELETE FROM orders */",
        "R|SELECT 1 -- \n; DELETE FROM orders",
        "R|REPLACE INTO regions VALUES (1, 'x')",
        "R|INSERT OR REPLACE INTO regions VALUES (1, 'x')",
        "R|INSERT INTO regions VALUES (99, 'x') RETURNING *",
        "R|WITH x AS (SELECT 1) INSERT INTO regions SELECT 99, 'x' FROM x",
        "R|SELECT writefile('" + dir + "/evil.txt', 'x')",
        "R|SELECT readfile('/etc/passwd')",
        "R|SELECT fts3_tokenizer('simple')",
        "R|SELECT sqlite_compileoption_get(0)",
        "R|CREATE VIRTUAL TABLE evil USING fts5(x)",
        "R|CREATE TEMP TABLE evil (x)",
        "R|CREATE TRIGGER evil AFTER INSERT ON orders BEGIN DELETE FROM orders; END",
        "R|BEGIN IMMEDIATE",
        "R|SAVEPOINT evil",
        "R|END",
        "R|SELECT 'a' 'b'",
        "R|SELECT a$b FROM orders",
        "R|SELECT id -> 'x' FROM orders",
        "R|SELECT 1_000",
        "R|SELECT randomblob(2000000000)",
        "R|SELECT zeroblob(1000000000)",
        "R|SELECT printf('%.*c', 2000000000, 'x')",
        "R|WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) "
            + "SELECT count(*) FROM r",
        "R|SELECT * FROM orders WHERE status == 'lost'; DELETE FROM orders",
        "B|WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT n FROM r",
        "B|SELECT length(zeroblob(1000000)) FROM orders",
        "B|SELECT \"name\", [id], `region_id` FROM employees",
        "B|SELECT * FROM orders WHERE status == 'delivered'",
        "B|SELECT sqlite_version()",
        "R|SELECT x'414243'",
        "B|SELECT 0x10 + 1");
  }

  @BeforeAll
  static void start() {
    file = TestSqlite.create();
    before = file.checksum();
    filesBefore = file.files();
    server = AgentServer.sqlite(file, HostileStatementsTest.LIMITS, false);
    analyst = server.client(AgentServer.ANALYST).initialize();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    for (String c : HostileStatementsTest.CASES) {
      String sql = c.substring(2);
      all.add(Arguments.of(REFUSED_ON_SQLITE.contains(sql) ? 'R' : c.charAt(0), sql));
    }
    // the served file's own directory, whose listing is compared at the end
    for (String c : sqliteCases(file.dir.toString())) {
      all.add(Arguments.of(c.charAt(0), c.substring(2)));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("cases")
  void hostileStatementIsRefusedOrBoundedAndNamesNothingHidden(char expected, String sql) {
    String arguments = "{\"sql\":" + JsonNodeFactory.instance.stringNode(sql) + "}";
    long started = System.nanoTime();
    JsonNode response = analyst.request("tools/call", AgentClient.callParams("query",
        arguments));
    long millis = (System.nanoTime() - started) / 1_000_000;
    String text = response.toString();
    for (String hidden : AgentServer.HIDDEN_FROM_ANALYST) {
      if (!sql.toLowerCase(Locale.ROOT).contains(hidden) || expected == 'R') {
        assertThat(text.toLowerCase(Locale.ROOT)).as("the answer names %s", hidden)
            .doesNotContain(hidden);
      }
    }
    assertThat(text).doesNotContain("sqlite_schema").doesNotContain("sqlite_master");
    JsonNode result = response.get("result");
    assertThat(result).as(text).isNotNull();
    if (expected == 'R') {
      assertThat(result.path("isError").asBoolean(false)).as("refused: %s", text).isTrue();
    } else {
      assertThat(result.path("isError").asBoolean(false)).as("runs: %s", text).isFalse();
      JsonNode rows = AgentClient.structured(result);
      assertThat(rows.get("rowCount").asInt()).isLessThanOrEqualTo(
          HostileStatementsTest.LIMITS.maxRows());
      assertThat(text.length()).isLessThan((int) HostileStatementsTest.LIMITS.maxResultBytes()
          * 3);
    }
    assertThat(millis).isLessThan(10_000);
  }

  @Test
  void aRunawayRecursiveQueryIsStoppedByTheStatementTimeout() {
    long started = System.nanoTime();
    String error = AgentClient.error(analyst.call("query", "{\"sql\":\"WITH RECURSIVE r(n) AS "
        + "(SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 1000000000) "
        + "SELECT count(*) FROM r\"}"));
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertThat(error).containsAnyOf("statement timeout", "timed out");
    assertThat(millis).isBetween(1_500L, 4_000L);
  }

  @Test
  void theFileIsUntouchedAfterwards() {
    // run after the others by name order is not guaranteed; the check holds at any point
    AgentClient admin = server.client(AgentServer.ADMIN).initialize();
    JsonNode counts = AgentClient.structured(admin.call("query", "{\"sql\":\"SELECT "
        + "(SELECT count(*) FROM orders), (SELECT count(*) FROM regions), "
        + "(SELECT count(*) FROM audit_log)\"}"));
    assertThat(counts.get("rows").get(0).toString()).isEqualTo("[2500,5,300]");
    assertThat(file.checksum()).isEqualTo(before);
    assertThat(file.files()).isEqualTo(filesBefore);
  }

  @org.junit.jupiter.api.AfterAll
  static void fileUnchangedAtTheEnd() {
    assertThat(file.checksum()).as("the database file changed").isEqualTo(before);
    assertThat(file.files()).as("files appeared beside the database").isEqualTo(filesBefore);
  }
}
