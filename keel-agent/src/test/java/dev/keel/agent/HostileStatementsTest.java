package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Done item 3 of the agent issue: hostile statements sent to the {@code query} tool as the
 * {@code analyst} (who may not see {@code audit_log}, salaries, e-mail addresses or signup
 * dates), on H2 and on a real PostgreSQL. Each is refused, or bounded (rows, bytes, time), and
 * no answer names anything hidden. Afterwards the data is exactly as before.
 */
class HostileStatementsTest {

  static final AgentLimits LIMITS = AgentLimits.defaults().withMaxRows(50)
      .withMaxResultBytes(64 * 1024).withMaxCellChars(1000)
      .withStatementTimeout(Duration.ofSeconds(2));

  static AgentServer h2;
  static AgentServer postgres;
  static Map<String, AgentClient> analysts;

  /** R: refused. B: runs, but bounded. */
  static final List<String> CASES = List.of(
      "R|DELETE FROM orders",
      "R|UPDATE orders SET status = 'lost'",
      "R|INSERT INTO regions VALUES (99, 'Atlantis')",
      "R|DROP TABLE orders",
      "R|CREATE TABLE evil (id INTEGER)",
      "R|ALTER TABLE orders ADD COLUMN evil INTEGER",
      "R|TRUNCATE TABLE orders",
      "R|GRANT SELECT ON audit_log TO PUBLIC",
      "R|SELECT 1; DELETE FROM orders",
      "R|SELECT 1; SELECT 2",
      "R|SELECT * FROM orders /* ; */ ; DROP TABLE orders",
      "R|SELECT * FROM orders -- harmless?\n; DELETE FROM orders",
      "R|SELECT 'it''s;' AS x; DELETE FROM orders",
      "R|SELECT E'\\'' ; DELETE FROM orders; --'",
      // a dollar-quoted string, lexed as the engines lex it: harmless text
      "B|SELECT $$;DELETE FROM orders;$$",
      "R|SELECT * INTO evil FROM orders",
      "R|SELECT * FROM orders FOR UPDATE",
      "R|SELECT * FROM orders WHERE id = 1 FOR SHARE",
      "R|WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
      "R|SELECT * FROM OLD TABLE (DELETE FROM orders WHERE id = 1)",
      "R|SELECT set_config('default_transaction_read_only', 'off', false)",
      "R|SELECT nextval('orders_id_seq')",
      "R|SELECT NEXT VALUE FOR orders_seq",
      "R|SELECT pg_terminate_backend(pg_backend_pid())",
      "R|SELECT pg_read_file('/etc/passwd')",
      "R|SELECT FILE_READ('/etc/passwd')",
      "R|SELECT CSVWRITE('/tmp/keel-evil.csv', 'SELECT * FROM audit_log')",
      "R|SELECT query_to_xml('select * from audit_log', true, true, '')",
      "R|SELECT 'audit_log'::regclass",
      "R|SELECT * FROM audit_log",
      "R|SELECT * FROM public.audit_log",
      "R|SELECT * FROM \"audit_log\"",
      "R|SELECT * FROM AUDIT_LOG",
      "R|WITH audit_log AS (SELECT * FROM audit_log) SELECT * FROM audit_log",
      "R|SELECT id FROM orders UNION SELECT id FROM audit_log",
      "R|SELECT * FROM orders WHERE id = (SELECT max(employee_id) FROM audit_log)",
      "R|SELECT * FROM orders ORDER BY (SELECT count(*) FROM audit_log)",
      "R|SELECT * FROM information_schema.tables",
      "R|SELECT * FROM pg_catalog.pg_class",
      "R|SELECT salary FROM employees",
      "R|SELECT email FROM customers",
      "R|SELECT e.salary FROM employees e JOIN regions r ON r.id = e.region_id",
      "R|LOCK TABLE orders IN EXCLUSIVE MODE",
      "R|COPY orders TO '/tmp/keel-evil.csv'",
      "R|SET transaction_read_only = off",
      "R|BEGIN; DELETE FROM orders; COMMIT",
      "R|CALL evil()",
      "R|EXPLAIN ANALYZE DELETE FROM orders",
      "R|DO $$ BEGIN DELETE FROM orders; END $$",
      "B|SELECT * FROM employees",
      "B|SELECT * FROM customers c JOIN employees e ON e.region_id = c.region_id",
      "B|SELECT a.id, b.id FROM orders a CROSS JOIN orders b",
      "B|SELECT repeat('x', 100000) FROM orders",
      "R|SELECT count(*) FROM orders a, orders b, orders c");

  @BeforeAll
  static void start() {
    h2 = AgentServer.h2(LIMITS, false);
    postgres = AgentServer.postgres("keel_hostile", LIMITS, false);
    analysts = Map.of("h2", h2.client(AgentServer.ANALYST).initialize(),
        "postgresql", postgres.client(AgentServer.ANALYST).initialize());
  }

  @AfterAll
  static void stop() {
    if (h2 != null) {
      h2.close();
    }
    if (postgres != null) {
      postgres.close();
    }
  }

  static Stream<Arguments> cases() {
    List<Arguments> all = new ArrayList<>();
    for (String engine : List.of("h2", "postgresql")) {
      for (String c : CASES) {
        all.add(Arguments.of(engine, c.charAt(0), c.substring(2)));
      }
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("cases")
  void hostileStatementIsRefusedOrBoundedAndNamesNothingHidden(String engine, char expected,
      String sql) {
    AgentClient analyst = analysts.get(engine);
    String arguments = "{\"sql\":" + tools.jackson.databind.node.JsonNodeFactory.instance
        .stringNode(sql) + "}";
    long started = System.nanoTime();
    JsonNode response = analyst.request("tools/call",
        AgentClient.callParams("query", arguments));
    long millis = (System.nanoTime() - started) / 1_000_000;
    String text = response.toString();
    for (String hidden : AgentServer.HIDDEN_FROM_ANALYST) {
      if (!sql.toLowerCase(Locale.ROOT).contains(hidden) || expected == 'R') {
        assertThat(text.toLowerCase(Locale.ROOT)).as("the answer names %s", hidden)
            .doesNotContain(hidden);
      }
    }
    JsonNode result = response.get("result");
    assertThat(result).as(text).isNotNull();
    if (expected == 'R') {
      assertThat(result.path("isError").asBoolean(false)).as("refused: %s", text).isTrue();
    } else {
      JsonNode rows = AgentClient.structured(result);
      assertThat(rows.get("rowCount").asInt()).isLessThanOrEqualTo(LIMITS.maxRows());
      assertThat(text.length()).isLessThan((int) LIMITS.maxResultBytes() * 3);
    }
    // Bounded in time too: the statement timeout is 2 s.
    assertThat(millis).isLessThan(10_000);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void hugeResultsAreCutWithAMarkerThatSaysWhy(String engine) {
    AgentClient analyst = analysts.get(engine);
    JsonNode rows = AgentClient.structured(analyst.call("query",
        "{\"sql\":\"SELECT a.id, b.id FROM orders a CROSS JOIN orders b\"}"));
    assertThat(rows.get("rowCount").asInt()).isEqualTo(LIMITS.maxRows());
    assertThat(rows.get("truncated").asBoolean()).isTrue();
    assertThat(rows.get("truncation").asString()).startsWith("TRUNCATED:").contains("row limit");

    JsonNode wide = AgentClient.structured(analyst.call("query",
        "{\"sql\":\"SELECT repeat('x', 100000) AS x FROM orders\"}"));
    assertThat(wide.get("truncated").asBoolean()).isTrue();
    assertThat(wide.get("truncation").asString()).contains("cut at 1000 characters");
    assertThat(wide.get("rows").get(0).get(0).asString()).contains("...[cut: 99000 more");

    JsonNode bytes = AgentClient.structured(analyst.call("query",
        "{\"sql\":\"SELECT repeat('y', 999) AS a, repeat('z', 999) AS b FROM orders\"}"));
    assertThat(bytes.get("truncated").asBoolean()).isTrue();
    assertThat(bytes.get("truncation").asString()).contains("size limit");
    assertThat(bytes.get("rowCount").asInt()).isLessThan(LIMITS.maxRows());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void aLongStatementIsStoppedByTheStatementTimeout(String engine) {
    long started = System.nanoTime();
    String error = AgentClient.error(analysts.get(engine).call("query",
        "{\"sql\":\"SELECT count(*) FROM orders a, orders b, orders c\"}"));
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertThat(error).containsAnyOf("statement timeout", "timed out");
    assertThat(millis).isBetween(1_500L, 6_000L);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void theDataIsUntouchedAfterwards(String engine) {
    AgentClient admin = (engine.equals("h2") ? h2 : postgres).client(AgentServer.ADMIN)
        .initialize();
    JsonNode counts = AgentClient.structured(admin.call("query", "{\"sql\":\"SELECT "
        + "(SELECT count(*) FROM orders), (SELECT count(*) FROM regions), "
        + "(SELECT count(*) FROM audit_log)\"}"));
    assertThat(counts.get("rows").get(0).toString()).isEqualTo("[2500,5,300]");
    JsonNode tables = AgentClient.structured(admin.call("list_tables", "{}"));
    assertThat(tables.toString()).doesNotContain("evil");
    assertThat(Files.exists(Path.of("/tmp/keel-evil.csv"))).isFalse();
  }
}
