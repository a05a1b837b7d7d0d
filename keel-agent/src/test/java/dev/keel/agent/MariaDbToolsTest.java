package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * The agent's tools on a real MariaDB, through both drivers: listing and describing tables
 * (with comments and row estimates), sampling, counting, top values, and queries with
 * {@code ?} parameters, all as the analyst, who sees neither hidden tables nor hidden columns.
 */
class MariaDbToolsTest {

  static final Map<TestMariaDb.Driver, AgentServer> SERVERS =
      new EnumMap<>(TestMariaDb.Driver.class);

  @BeforeAll
  static void start() {
    for (TestMariaDb.Driver d : TestMariaDb.Driver.values()) {
      SERVERS.put(d, AgentServer.mariadb("keel_tools", d, AgentLimits.defaults(), false));
    }
  }

  @AfterAll
  static void stop() {
    SERVERS.values().forEach(AgentServer::close);
  }

  static AgentClient analyst(TestMariaDb.Driver d) {
    return SERVERS.get(d).client(AgentServer.ANALYST).initialize();
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void listAndDescribeTables(TestMariaDb.Driver d) {
    AgentClient analyst = analyst(d);
    String tables = AgentClient.structured(analyst.call("list_tables", "{}")).toString();
    assertThat(tables).contains("orders", "customers", "Sales regions").doesNotContain(
        "audit_log");
    JsonNode customers = AgentClient.structured(analyst.call("describe_table",
        "{\"table\":\"customers\"}"));
    String text = customers.toString();
    assertThat(text).contains("country", "region_id").doesNotContain("email", "signup_date");
    assertThat(customers.get("rowEstimate").asLong()).isBetween(100L, 10_000L);
    JsonNode orders = AgentClient.structured(analyst.call("describe_table",
        "{\"table\":\"orders\"}"));
    assertThat(orders.toString()).contains("orders_status_idx", "PRIMARY");
    assertThat(AgentClient.error(analyst.call("describe_table", "{\"table\":\"audit_log\"}")))
        .doesNotContain("audit_log");
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void sampleCountAndTopValues(TestMariaDb.Driver d) {
    AgentClient analyst = analyst(d);
    JsonNode sample = AgentClient.structured(analyst.call("sample_rows",
        "{\"table\":\"customers\",\"limit\":3}"));
    assertThat(sample.get("rowCount").asInt()).isEqualTo(3);
    assertThat(sample.toString()).doesNotContain("@");
    JsonNode count = AgentClient.structured(analyst.call("count_rows",
        "{\"table\":\"orders\"}"));
    assertThat(count.toString()).contains("2500");
    JsonNode filtered = AgentClient.structured(analyst.call("count_rows",
        "{\"table\":\"orders\",\"filters\":[{\"column\":\"status\",\"op\":\"=\","
            + "\"value\":\"delivered\"}]}"));
    assertThat(filtered.toString()).containsPattern("\\d+");
    JsonNode top = AgentClient.structured(analyst.call("top_values",
        "{\"table\":\"orders\",\"column\":\"status\"}"));
    assertThat(top.toString()).contains("delivered");
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void queriesTakeParametersAndStringsRoundTripExactly(TestMariaDb.Driver d) {
    AgentClient analyst = analyst(d);
    JsonNode rows = AgentClient.structured(analyst.call("query", "{\"sql\":\"SELECT id, "
        + "status FROM orders WHERE id BETWEEN ? AND ? ORDER BY id\",\"params\":[10,12]}"));
    assertThat(rows.get("rowCount").asInt()).isEqualTo(3);
    // a value with quotes and backslashes, bound by each driver, comes back unchanged: the
    // driver knows the pinned NO_BACKSLASH_ESCAPES (or binds on the server)
    String tricky = "a'b\\\\'c\\\"d`e; DELETE FROM orders -- #";
    JsonNode echo = AgentClient.structured(analyst.call("query", "{\"sql\":\"SELECT ? AS v, "
        + "'it''s' AS w, \\\"id\\\" FROM `orders` WHERE id = 1\",\"params\":[\"" + tricky
        + "\"]}"));
    JsonNode row = echo.get("rows").get(0);
    assertThat(row.get(0).asString()).isEqualTo("a'b\\'c\"d`e; DELETE FROM orders -- #");
    assertThat(row.get(1).asString()).isEqualTo("it's");
    assertThat(row.get(2).asInt()).isEqualTo(1);
    JsonNode joined = AgentClient.structured(analyst.call("query", "{\"sql\":\"SELECT "
        + "c.name, count(*) AS n FROM customers c JOIN orders o ON o.customer_id = c.id "
        + "GROUP BY c.name ORDER BY n DESC LIMIT 5\"}"));
    assertThat(joined.get("rowCount").asInt()).isEqualTo(5);
    // a hidden column, asked for by name, is not there
    assertThat(AgentClient.error(analyst.call("query",
        "{\"sql\":\"SELECT email FROM customers\"}"))).doesNotContain("email");
  }
}
