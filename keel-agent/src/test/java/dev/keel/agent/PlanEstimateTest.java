package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.agent.internal.run.PlanEstimate;
import dev.keel.mcp.core.McpJson;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Admission by the planner's estimate: with {@code maxEstimatedRows} set, a cartesian join of
 * the sample's orders, orders and customers is refused before it runs, with the estimate and
 * what to narrow, while a narrow query runs; {@link PlanEstimate} reads cost and rows of a
 * parameterised statement.
 */
class PlanEstimateTest {

  static AgentServer server;
  static TestPostgres pg;

  @BeforeAll
  static void start() {
    pg = TestPostgres.get();
    server = AgentServer.postgres("keel_estimate", AgentLimits.defaults()
        .withMaxEstimatedRows(10_000_000), false);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aCartesianJoinIsRefusedByTheEstimateBeforeItRuns() throws Exception {
    AgentClient admin = server.client(AgentServer.ADMIN).initialize();
    long started = System.nanoTime();
    String error = AgentClient.error(admin.call("query", "{\"sql\":\"SELECT "
        + "'keel_cartesian_marker' AS m, a.id, b.id, c.id FROM orders a, orders b, customers c\"}"));
    Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
    // 2,500 x 2,500 x 600
    assertThat(error).isEqualTo("Refused: The database estimates this query returns about "
        + "3,750,000,000 rows (the limit is 10,000,000): add a join condition or a WHERE "
        + "clause, or use LIMIT");
    assertThat(elapsed).isLessThan(Duration.ofSeconds(2));
    // no backend runs it or ran it: only its EXPLAIN reached the server
    try (Connection c = pg.superuser("keel_estimate"); var s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE query LIKE "
            + "'%keel_cartesian_marker%' AND query NOT LIKE '%EXPLAIN%' "
            + "AND query NOT LIKE '%pg_stat_activity%'")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
    }
  }

  @Test
  void narrowQueriesRunAndLimitHelps() {
    AgentClient admin = server.client(AgentServer.ADMIN).initialize();
    JsonNode narrow = admin.call("query", "{\"sql\":\"SELECT o.id, c.name FROM orders o "
        + "JOIN customers c ON c.id = o.customer_id WHERE o.customer_id = ?\",\"params\":[7]}");
    assertThat(AgentClient.structured(narrow).get("rowCount").asInt()).isPositive();
    JsonNode limited = admin.call("query", "{\"sql\":\"SELECT a.id, b.id FROM orders a, "
        + "orders b, customers c LIMIT 5\"}");
    assertThat(AgentClient.structured(limited).get("rowCount").asInt()).isEqualTo(5);
  }

  @Test
  void theCostLimitRefusesToo() {
    try (AgentServer costly = AgentServer.postgres("keel_estimate", AgentLimits.defaults()
        .withMaxEstimatedCost(1_000), false)) {
      AgentClient admin = costly.client(AgentServer.ADMIN).initialize();
      assertThat(AgentClient.error(admin.call("query", "{\"sql\":\"SELECT count(*) FROM "
          + "orders a, orders b\"}"))).startsWith("Refused: The database estimates this query costs "
          + "about ").contains("(the limit is 1,000)");
      assertThat(AgentClient.structured(admin.call("query", "{\"sql\":\"SELECT name FROM "
          + "regions WHERE id = 1\"}")).get("rowCount").asInt()).isEqualTo(1);
    }
  }

  @Test
  void theEstimateOfAParameterisedStatement() throws Exception {
    Properties props = new Properties();
    props.setProperty("user", TestPostgres.AGENT_USER);
    props.setProperty("password", TestPostgres.AGENT_PASSWORD);
    props.setProperty("stringtype", "unspecified");
    try (Connection c = DriverManager.getConnection(pg.database("keel_estimate"), props)) {
      c.setAutoCommit(false);
      c.setReadOnly(true);
      PlanEstimate all = PlanEstimate.of(c, "SELECT * FROM orders", List.of());
      assertThat(all.rows()).isEqualTo(2500);
      // a text compared with a timestamp: typed by the server, as the query itself would be
      PlanEstimate some = PlanEstimate.of(c, "SELECT * FROM orders WHERE customer_id = ? "
          + "AND ordered_at >= ?", List.of(McpJson.standard().parse("7"),
          McpJson.standard().parse("\"2024-01-01\"")));
      assertThat(some.rows()).isLessThan(50);
      assertThat(some.totalCost()).isPositive().isLessThan(all.totalCost());
      assertThat(some.top().path("Node Type").asString()).isNotEmpty();
      c.rollback();
    }
  }
}
