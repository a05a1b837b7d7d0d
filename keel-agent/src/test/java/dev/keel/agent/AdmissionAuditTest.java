package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Admission control as an operator sees it in the audit file: on PostgreSQL a cartesian join of
 * the sample's largest tables is refused by the planner's estimate without ever executing (the
 * server's own statement statistics show only its {@code EXPLAIN}), the quota refuses the
 * n+1st statement of a minute while another principal is still served, and on MariaDB the
 * optimizer's estimate refuses the same join. Each decision is a line of the audit file, which
 * the test reads back.
 */
class AdmissionAuditTest {

  private static final String CARTESIAN = "SELECT a.id AS keel_cartesian_marker, b.order_id, "
      + "c.id FROM orders a, order_items b, customers c";
  private static final int QUOTA = 4;

  @Test
  void theEstimateAndTheQuotaRefuseAndTheAuditFileSaysSo(@TempDir Path dir) throws Exception {
    TestPostgres pg = TestPostgres.get();
    String url = pg.analysisDatabase("keel_admission");
    try (Connection c = pg.superuser("keel_admission"); Statement s = c.createStatement()) {
      s.execute("SELECT " + TestPostgres.EXTENSION_SCHEMA + ".pg_stat_statements_reset()");
    }
    Path audit = dir.resolve("audit.jsonl");
    AgentLimits limits = AgentLimits.defaults().withMaxEstimatedRows(1_000_000)
        .withQueriesPerMinute(QUOTA);
    try (AgentServer server = new AgentServer("postgresql", DatabaseAgent.builder()
        .jdbcUrl(url).user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD)
        .access(AgentServer.policy()).limits(limits).auditFile(audit).build(),
        AgentServer.KEYS)) {
      AgentClient analyst = server.client(AgentServer.ANALYST).initialize();
      String refused = AgentClient.error(analyst.call("query",
          "{\"sql\":\"" + CARTESIAN + "\"}"));
      assertThat(refused).startsWith("Refused: The database estimates this query returns about ")
          .contains("(the limit is 1,000,000)");
      // statements 2..QUOTA of the minute run (the refused one counted: it was admitted)
      for (int i = 2; i <= QUOTA; i++) {
        JsonNode ran = analyst.call("query", "{\"sql\":\"SELECT count(*) FROM orders WHERE "
            + "customer_id = " + i + "\"}");
        assertThat(AgentClient.structured(ran).get("rowCount").asInt()).isEqualTo(1);
      }
      String quota = AgentClient.error(analyst.call("query",
          "{\"sql\":\"SELECT name FROM regions\"}"));
      assertThat(quota).startsWith("Refused: Quota reached: you may run " + QUOTA
          + " statements a minute; try again in ");
      // the quota is the analyst's, not the server's
      AgentClient admin = server.client(AgentServer.ADMIN).initialize();
      assertThat(AgentClient.structured(admin.call("query",
          "{\"sql\":\"SELECT name FROM regions\"}")).get("rowCount").asInt()).isPositive();
    }
    // the join never executed: the server recorded its EXPLAIN and nothing else
    try (Connection c = pg.superuser("keel_admission"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT query FROM " + TestPostgres.EXTENSION_SCHEMA
            + ".pg_stat_statements WHERE query LIKE '%keel_cartesian_marker%'")) {
      List<String> seen = new java.util.ArrayList<>();
      while (rs.next()) {
        seen.add(rs.getString(1));
      }
      assertThat(seen).isNotEmpty().allSatisfy(q -> assertThat(q).startsWith("EXPLAIN"));
    }

    List<JsonNode> lines = lines(audit);
    assertThat(lines).filteredOn(l -> l.path("principal").asString("").equals("analyst"))
        .hasSize(QUOTA + 1);
    JsonNode estimate = lines.get(0);
    assertThat(estimate.path("tool").asString()).isEqualTo("query");
    assertThat(estimate.path("outcome").asString()).isEqualTo("refused");
    assertThat(estimate.path("statement").asString()).isEqualTo(CARTESIAN);
    assertThat(estimate.path("reason").asString()).startsWith("The database estimates this "
        + "query returns about ");
    assertThat(estimate.path("digest").asString()).hasSize(64);
    assertThat(lines.subList(1, QUOTA)).allSatisfy(l -> {
      assertThat(l.path("outcome").asString()).isEqualTo("ran");
      assertThat(l.path("rows").asLong()).isEqualTo(1);
    });
    JsonNode quota = lines.get(QUOTA);
    assertThat(quota.path("principal").asString()).isEqualTo("analyst");
    assertThat(quota.path("outcome").asString()).isEqualTo("refused");
    assertThat(quota.path("statement").asString()).isEqualTo("SELECT name FROM regions");
    assertThat(quota.path("reason").asString()).startsWith("Quota reached: you may run "
        + QUOTA + " statements a minute");
    assertThat(lines.get(QUOTA + 1).path("principal").asString()).isEqualTo("admin");
    assertThat(lines.get(QUOTA + 1).path("outcome").asString()).isEqualTo("ran");
  }

  @Test
  void onMariaDbTheOptimizersEstimateRefusesTheJoin(@TempDir Path dir) throws Exception {
    TestMariaDb maria = TestMariaDb.get();
    Path audit = dir.resolve("audit.jsonl");
    try (AgentServer server = new AgentServer("mariadb", DatabaseAgent.builder()
        .jdbcUrl(maria.database("keel_admission", TestMariaDb.Driver.MARIADB))
        .user(TestMariaDb.AGENT_USER).password(TestMariaDb.AGENT_PASSWORD)
        .access(AgentServer.policy()).limits(AgentLimits.defaults()
            .withMaxEstimatedRows(1_000_000)).auditFile(audit).build(), AgentServer.KEYS)) {
      AgentClient analyst = server.client(AgentServer.ANALYST).initialize();
      assertThat(AgentClient.error(analyst.call("query", "{\"sql\":\"" + CARTESIAN + "\"}")))
          .startsWith("Refused: The database estimates this query reads about ")
          .contains("(the limit is 1,000,000)");
      assertThat(AgentClient.structured(analyst.call("query", "{\"sql\":\"SELECT o.id FROM "
          + "orders o JOIN customers c ON c.id = o.customer_id WHERE c.id = 7\"}"))
          .get("rowCount").asInt()).isPositive();
    }
    List<JsonNode> lines = lines(audit);
    assertThat(lines).hasSize(2);
    assertThat(lines.get(0).path("outcome").asString()).isEqualTo("refused");
    assertThat(lines.get(0).path("source").asString()).isEqualTo(DatabaseAgent.DEFAULT_SOURCE);
    assertThat(lines.get(0).path("reason").asString()).startsWith("The database estimates");
    assertThat(lines.get(1).path("outcome").asString()).isEqualTo("ran");
  }

  private static List<JsonNode> lines(Path audit) throws Exception {
    return Files.readAllLines(audit).stream().map(McpJson.standard()::parse).toList();
  }
}
