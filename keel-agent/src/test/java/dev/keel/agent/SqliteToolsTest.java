package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The agent's ordinary tools on a real SQLite file over HTTP: the catalog (tables, columns,
 * keys, indexes, row estimates, through sqlite-jdbc's metadata, which reports no schema
 * names), samples, counts, top values, queries with {@code ?} parameters, plans, and stopping
 * a long query by {@code notifications/cancelled} and by the statement timeout.
 */
class SqliteToolsTest {

  static TestSqlite file;
  static AgentServer server;
  static AgentServer impatient;
  static AgentClient analyst;
  static AgentClient admin;

  static final String LONG_QUERY = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 "
      + "FROM r WHERE n < 1000000000) SELECT count(*) FROM r";

  @BeforeAll
  static void start() {
    file = TestSqlite.create();
    server = AgentServer.sqlite(file, AgentLimits.defaults()
        .withStatementTimeout(Duration.ofSeconds(60)), false);
    impatient = AgentServer.sqlite(file, AgentLimits.defaults()
        .withStatementTimeout(Duration.ofSeconds(1)), false);
    analyst = server.client(AgentServer.ANALYST).initialize();
    admin = server.client(AgentServer.ADMIN).initialize();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
    if (impatient != null) {
      impatient.close();
    }
  }

  @Test
  void listTablesShowsTheVisibleTablesAndNoneOfSqlitesOwn() {
    String analystTables = AgentClient.structured(analyst.call("list_tables", "{}")).toString();
    assertThat(analystTables).contains("customers", "orders", "order_items", "products",
        "regions", "employees").doesNotContain("audit_log").doesNotContain("sqlite_");
    String adminTables = AgentClient.structured(admin.call("list_tables", "{}")).toString();
    assertThat(adminTables).contains("audit_log").doesNotContain("sqlite_");
  }

  @Test
  void describeTableHasColumnsKeysIndexesAndARowCount() {
    JsonNode orders = AgentClient.structured(admin.call("describe_table",
        "{\"table\":\"orders\"}"));
    String text = orders.toString();
    assertThat(text).contains("customer_id", "ordered_at", "status", "total",
        "orders_customer_idx", "orders_status_idx", "customers", "order_items");
    assertThat(orders.get("rowEstimate").asLong()).isEqualTo(2500);
    String customers = AgentClient.structured(analyst.call("describe_table",
        "{\"table\":\"customers\"}")).toString();
    assertThat(customers).contains("region_id", "customers_country_idx")
        .doesNotContain("email").doesNotContain("signup_date");
    JsonNode items = AgentClient.structured(admin.call("describe_table",
        "{\"table\":\"order_items\"}"));
    assertThat(items.toString()).contains("order_id", "line_no", "product_id");
  }

  @Test
  void sampleCountAndTopValues() {
    JsonNode sample = AgentClient.structured(analyst.call("sample_rows",
        "{\"table\":\"customers\",\"limit\":3}"));
    assertThat(sample.get("rowCount").asInt()).isBetween(1, 3);
    assertThat(sample.toString()).doesNotContain("@example.com");
    JsonNode count = AgentClient.structured(analyst.call("count_rows",
        "{\"table\":\"orders\",\"filters\":[{\"column\":\"status\",\"op\":\"=\","
            + "\"value\":\"delivered\"}]}"));
    assertThat(count.get("count").asLong()).isBetween(1L, 2499L);
    JsonNode top = AgentClient.structured(analyst.call("top_values",
        "{\"table\":\"orders\",\"column\":\"status\"}"));
    assertThat(top.get("rows").asLong()).isEqualTo(2500);
    assertThat(top.get("values").get(0).toString()).contains("delivered");
  }

  @Test
  void queryWithParametersAndExplain() {
    JsonNode rows = AgentClient.structured(analyst.call("query", "{\"sql\":\"SELECT status, "
        + "count(*) AS n FROM orders WHERE total > ? AND status <> ? GROUP BY status "
        + "ORDER BY status\",\"params\":[100, \"cancelled\"]}"));
    assertThat(rows.get("rowCount").asInt()).isBetween(2, 5);
    assertThat(rows.toString()).doesNotContain("cancelled").contains("delivered");
    JsonNode plan = AgentClient.structured(analyst.call("explain", "{\"sql\":\"SELECT * FROM "
        + "orders WHERE customer_id = ?\",\"params\":[1]}"));
    assertThat(plan.get("plan").asString()).contains("orders_customer_idx");
  }

  @Test
  void notificationsCancelledStopsALongQuery() throws Exception {
    AgentClient client = server.client(AgentServer.ADMIN).initialize();
    CompletableFuture<HttpResponse<String>> call = client.callAsync(42, "query",
        "{\"sql\":\"" + LONG_QUERY + "\"}");
    await().atMost(Duration.ofSeconds(10)).until(() -> server.agent.activeConnections() == 1);
    Thread.sleep(200);
    long start = System.nanoTime();
    assertThat(client.cancel(42)).isEqualTo(202);
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(5))
        .until(() -> server.agent.activeConnections() == 0);
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.err.printf("sqlite: connection back %d ms after notifications/cancelled%n", millis);
    assertThat(millis).isLessThan(CancellationTest.LIMIT_MILLIS);
    assertThat(call.get(5, TimeUnit.SECONDS).body()).doesNotContain("\"id\":42");
    assertThat(AgentClient.structured(client.call("query", "{\"sql\":\"SELECT 1\"}"))
        .get("rowCount").asInt()).isEqualTo(1);
  }

  @Test
  void theStatementTimeoutStopsALongQuery() {
    AgentClient client = impatient.client(AgentServer.ADMIN).initialize();
    long start = System.nanoTime();
    String error = AgentClient.error(client.call("query", "{\"sql\":\"" + LONG_QUERY + "\"}"));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(error).containsAnyOf("statement timeout", "timed out");
    assertThat(millis).isBetween(900L, 2_000L);
    await().atMost(Duration.ofSeconds(2)).until(() -> impatient.agent.activeConnections() == 0);
  }
}
