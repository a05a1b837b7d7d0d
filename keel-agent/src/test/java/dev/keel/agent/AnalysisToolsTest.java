package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The analysis tools over real HTTP: {@code explain} as a JSON plan, {@code suggest_indexes}
 * with hypopg, {@code slow_statements} from pg_stat_statements and {@code health}, on a
 * PostgreSQL database with the extensions, and their answers without the extensions (a second
 * database) and on H2.
 */
class AnalysisToolsTest {

  static TestPostgres pg;
  static AgentServer full;
  static AgentServer plain;
  static AgentServer h2;

  @BeforeAll
  static void start() throws SQLException {
    pg = TestPostgres.get();
    pg.analysisDatabase("keel_analysis");
    try (Connection c = pg.superuser("keel_analysis"); Statement s = c.createStatement()) {
      s.execute("CREATE INDEX keel_unused_idx ON orders (total)");
      s.execute("CREATE INDEX keel_email_idx ON customers (email)");
      s.execute("CREATE INDEX keel_audit_idx ON audit_log (action)");
      // a unique index built concurrently over duplicates fails and stays behind, invalid
      try {
        s.execute("CREATE UNIQUE INDEX CONCURRENTLY keel_invalid_idx ON orders (status)");
      } catch (SQLException expected) {
        // 23505: the duplicates
      }
      s.execute("UPDATE regions SET name = name");
    }
    // one connection: the hypothetical indexes would be visible on it if they were left over
    full = AgentServer.postgres("keel_analysis", AgentLimits.defaults().withPoolSize(1), false);
    plain = AgentServer.postgres("keel_analysis_plain", AgentLimits.defaults(), false);
    h2 = AgentServer.h2(AgentLimits.defaults(), false);
  }

  @AfterAll
  static void stop() {
    for (AgentServer s : new AgentServer[] {full, plain, h2}) {
      if (s != null) {
        s.close();
      }
    }
  }

  static AgentClient client(AgentServer server, String key) {
    return server.client(key).initialize();
  }

  // ---- explain ----

  @Test
  void explainReturnsThePlanAsJson() {
    JsonNode out = AgentClient.structured(client(full, AgentServer.ADMIN).call("explain",
        "{\"sql\":\"SELECT * FROM orders WHERE customer_id = ?\",\"params\":[7]}"));
    assertThat(out.get("format").asString()).isEqualTo("json");
    assertThat(out.get("plan").isArray()).isTrue();
    assertThat(out.at("/plan/0/Plan/Node Type").asString()).isNotEmpty();
    assertThat(out.get("totalCost").asDouble()).isPositive();
    assertThat(out.get("truncated").asBoolean()).isFalse();
  }

  @Test
  void explainChecksTheStatementLikeQuery() {
    AgentClient admin = client(full, AgentServer.ADMIN);
    assertThat(AgentClient.error(admin.call("explain",
        "{\"sql\":\"SELECT pg_read_file('postgresql.conf')\"}"))).contains("is not allowed");
    assertThat(AgentClient.error(admin.call("explain", "{\"sql\":\"DELETE FROM orders\"}")))
        .startsWith("Refused");
    AgentClient analyst = client(full, AgentServer.ANALYST);
    assertThat(AgentClient.error(analyst.call("explain", "{\"sql\":\"SELECT * FROM audit_log\"}")))
        .isEqualTo(AgentClient.error(analyst.call("explain",
            "{\"sql\":\"SELECT * FROM no_such_table\"}")));
  }

  @Test
  void explainOnH2IsText() {
    JsonNode out = AgentClient.structured(client(h2, AgentServer.ADMIN).call("explain",
        "{\"sql\":\"SELECT * FROM orders WHERE id = 1\"}"));
    assertThat(out.get("format").asString()).isEqualTo("text");
    assertThat(out.get("plan").isString()).isTrue();
  }

  // ---- suggest_indexes ----

  @Test
  void suggestIndexesFindsAnIndexThatHelpsAndLeavesNothingBehind() {
    AgentClient admin = client(full, AgentServer.ADMIN);
    String args = "{\"sql\":\"SELECT id, country FROM customers WHERE name = ?\","
        + "\"params\":[\"Nobody\"]}";
    JsonNode out = AgentClient.structured(admin.call("suggest_indexes", args));
    JsonNode first = out.at("/suggestions/0");
    assertThat(first.get("table").asString()).as("%s", out).isEqualTo("customers");
    assertThat(first.get("columns").get(0).asString()).isEqualTo("name");
    assertThat(first.get("createIndex").asString())
        .startsWith("CREATE INDEX ON \"public\".\"customers\" (\"name\"");
    double before = out.get("costBefore").asDouble();
    assertThat(first.get("costAfter").asDouble()).isLessThan(before);
    // the same (only) connection plans it without the hypothetical index again
    JsonNode plan = AgentClient.structured(admin.call("explain", args));
    assertThat(plan.get("totalCost").asDouble()).isEqualTo(before);
  }

  @Test
  void suggestIndexesReadsJoinsAndSortsThroughAliases() {
    JsonNode out = AgentClient.structured(client(full, AgentServer.ADMIN).call(
        "suggest_indexes", "{\"sql\":\"SELECT o.id FROM orders o JOIN order_items i "
            + "ON i.order_id = o.id WHERE i.quantity = 3 AND o.status = 'shipped' "
            + "ORDER BY o.ordered_at DESC LIMIT 10\"}"));
    assertThat(out.get("candidatesTried").asInt()).isPositive();
    for (JsonNode s : out.get("suggestions")) {
      assertThat(s.get("table").asString()).isIn("orders", "order_items");
    }
  }

  @Test
  void suggestIndexesNamesOnlyColumnsTheCallerSees() {
    AgentClient analyst = client(full, AgentServer.ANALYST);
    JsonNode out = AgentClient.structured(analyst.call("suggest_indexes",
        "{\"sql\":\"SELECT c.id FROM customers c WHERE c.segment = ? AND c.name = ? "
            + "ORDER BY c.name\",\"params\":[\"smb\",\"Nobody\"]}"));
    Set<String> visible = Set.of("id", "name", "country", "region_id", "segment");
    for (JsonNode s : out.get("suggestions")) {
      s.get("columns").forEach(c -> assertThat(c.asString()).isIn(visible));
    }
    assertThat(out.get("suggestions")).isNotEmpty();
    assertThat(out.toString()).doesNotContain("email").doesNotContain("signup_date");
    assertThat(AgentClient.error(analyst.call("suggest_indexes",
        "{\"sql\":\"SELECT id FROM customers WHERE email = 'x'\"}")))
        .doesNotContain("email");
  }

  @Test
  void suggestIndexesWithoutHypopgOrPostgresql() {
    assertThat(AgentClient.error(client(plain, AgentServer.ADMIN).call("suggest_indexes",
        "{\"sql\":\"SELECT id FROM customers WHERE name = 'x'\"}")))
        .isEqualTo("Index advice needs the hypopg extension (CREATE EXTENSION hypopg)");
    assertThat(AgentClient.error(client(h2, AgentServer.ADMIN).call("suggest_indexes",
        "{\"sql\":\"SELECT id FROM customers WHERE name = 'x'\"}")))
        .startsWith("Index advice needs PostgreSQL with the hypopg extension");
  }

  // ---- slow_statements ----

  @Test
  void slowStatementsShowsThisDatabasesStatementsToWhoeverSeesEverything() {
    AgentClient admin = client(full, AgentServer.ADMIN);
    AgentClient.structured(admin.call("query",
        "{\"sql\":\"SELECT count(*) AS keel_slow_marker FROM orders\"}"));
    JsonNode out = AgentClient.structured(admin.call("slow_statements",
        "{\"limit\":50,\"orderBy\":\"mean\"}"));
    List<String> texts = new ArrayList<>();
    out.get("statements").forEach(s -> texts.add(s.get("query").asString("")));
    assertThat(texts).anyMatch(t -> t.contains("keel_slow_marker"));
    assertThat(out.at("/statements/0/calls").asLong()).isPositive();
  }

  @Test
  void slowStatementsAreRefusedToWhoeverSeesLess() {
    assertThat(AgentClient.error(client(full, AgentServer.ANALYST).call("slow_statements",
        "{}"))).startsWith("The slowest statements are shown only to a principal that may see "
        + "every table");
  }

  @Test
  void slowStatementsWithoutTheExtensionOrPostgresql() {
    assertThat(AgentClient.error(client(plain, AgentServer.ADMIN).call("slow_statements",
        "{}"))).startsWith("Slow statements need the pg_stat_statements extension");
    assertThat(AgentClient.error(client(h2, AgentServer.ADMIN).call("slow_statements", "{}")))
        .startsWith("Slow statements need PostgreSQL");
  }

  // ---- health ----

  @Test
  void healthReportsTheCallersTablesOnly() throws SQLException {
    try (Connection open = pg.superuser("keel_analysis"); Statement s = open.createStatement()) {
      open.setAutoCommit(false);
      s.execute("SELECT 'keel_open_transaction_marker'");
      AgentClient admin = client(full, AgentServer.ADMIN);
      String args = "{\"longTransactionSeconds\":0}";
      // the statistics of the UPDATE reach the views within a second or so
      JsonNode all = await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(300))
          .until(() -> AgentClient.structured(admin.call("health", args)),
              h -> h.get("deadRows").toString().contains("\"regions\""));
      assertThat(indexNames(all.get("unusedIndexes")))
          .contains("keel_unused_idx", "keel_email_idx", "keel_audit_idx")
          .doesNotContain("orders_pkey");
      assertThat(indexNames(all.get("invalidIndexes"))).contains("keel_invalid_idx");
      JsonNode tx = all.get("longTransactions");
      assertThat(tx).isNotEmpty();
      List<String> states = new ArrayList<>();
      tx.forEach(t -> {
        states.add(t.get("state").asString(""));
        assertThat(t.propertyNames()).containsExactlyInAnyOrder("state", "ageSeconds",
            "waiting");
      });
      assertThat(states).contains("idle in transaction");
      assertThat(all.toString()).doesNotContain("keel_open_transaction_marker");

      JsonNode analyst = AgentClient.structured(client(full, AgentServer.ANALYST)
          .call("health", args));
      assertThat(indexNames(analyst.get("unusedIndexes"))).contains("keel_unused_idx");
      assertThat(analyst.toString()).doesNotContain("audit_log").doesNotContain("email")
          .doesNotContain("keel_audit_idx");
      open.rollback();
    }
  }

  @Test
  void healthNeedsPostgresql() {
    assertThat(AgentClient.error(client(h2, AgentServer.ADMIN).call("health", "{}")))
        .startsWith("Health checks need PostgreSQL");
  }

  static List<String> indexNames(JsonNode list) {
    List<String> names = new ArrayList<>();
    list.forEach(i -> names.add(i.get("index").asString()));
    return names;
  }
}
