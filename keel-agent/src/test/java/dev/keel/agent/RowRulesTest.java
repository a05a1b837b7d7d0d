package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.Principal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Row-level rules from the principal's claims, on a real PostgreSQL: {@code alice} and
 * {@code bob} carry different {@code customer_id} claims and see only their own orders and
 * customer row, through every way of reading (free-form SQL with joins, subqueries, UNION,
 * CTEs, window functions and aggregates; {@code sample_rows}, {@code count_rows},
 * {@code top_values}; the {@code db://} resources; completions); {@code carol}, whose claim
 * matches no customer, sees {@code orders} exactly as she sees a table that is really empty.
 */
class RowRulesTest {

  static AgentServer server;
  static int alice;
  static int bob;
  static final int NOBODY = 999_999;
  static final Map<Integer, Long> ORDERS = new java.util.HashMap<>();
  static final Map<Integer, Long> ITEMS = new java.util.HashMap<>();
  static final Map<Integer, String> TOTALS = new java.util.HashMap<>();

  @BeforeAll
  static void start() throws Exception {
    TestPostgres pg = TestPostgres.get();
    String url = pg.database("keel_rows");
    try (Connection c = pg.superuser("keel_rows"); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE IF NOT EXISTS empty_orders (LIKE orders INCLUDING ALL)");
      s.execute("GRANT SELECT ON empty_orders TO " + TestPostgres.AGENT_USER);
      try (ResultSet rs = s.executeQuery("SELECT customer_id, count(*) FROM orders "
          + "GROUP BY customer_id ORDER BY 2 DESC, 1 LIMIT 2")) {
        rs.next();
        alice = rs.getInt(1);
        rs.next();
        bob = rs.getInt(1);
      }
      for (int who : new int[] {alice, bob}) {
        try (ResultSet rs = s.executeQuery("SELECT count(*), sum(total) FROM orders "
            + "WHERE customer_id = " + who)) {
          rs.next();
          ORDERS.put(who, rs.getLong(1));
          TOTALS.put(who, rs.getBigDecimal(2).toPlainString());
        }
        try (ResultSet rs = s.executeQuery("SELECT count(*) FROM order_items WHERE order_id IN "
            + "(SELECT id FROM orders WHERE customer_id = " + who + ")")) {
          rs.next();
          ITEMS.put(who, rs.getLong(1));
        }
      }
    }
    AccessPolicy.Builder policy = AccessPolicy.builder();
    for (String p : List.of("alice", "bob", "carol")) {
      policy.grant(p, "orders").rows(p, "orders", "customer_id = ${claims.customer_id}")
          .grant(p, "customers", "id", "name", "country")
          .rows(p, "customers", "id = ${claims.customer_id}")
          .grant(p, "order_items").grant(p, "products").grant(p, "empty_orders");
    }
    DatabaseAgent agent = DatabaseAgent.builder().jdbcUrl(url).user(TestPostgres.AGENT_USER)
        .password(TestPostgres.AGENT_PASSWORD).access(policy.build()).build();
    server = new AgentServer("postgresql", agent, AgentServer.withClaims(Map.of(
        "alice-token", new Principal("alice", "fp-alice", Map.of("customer_id", alice)),
        "bob-token", new Principal("bob", "fp-bob", Map.of("customer_id", (long) bob)),
        "carol-token", new Principal("carol", "fp-carol", Map.of("customer_id", NOBODY)))));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  static JsonNode rows(AgentClient client, String sql) {
    return AgentClient.structured(client.call("query", "{\"sql\":"
        + JsonNodeFactory.instance.stringNode(sql) + "}")).get("rows");
  }

  static Set<String> column(JsonNode rows, int index) {
    Set<String> values = new TreeSet<>();
    rows.forEach(r -> values.add(r.get(index).asString()));
    return values;
  }

  @Test
  void eachPrincipalSeesOnlyItsRowsThroughFreeFormSql() {
    for (int[] who : new int[][] {{alice, bob}, {bob, alice}}) {
      AgentClient c = server.client(who[0] == alice ? "alice-token" : "bob-token").initialize();
      String me = String.valueOf(who[0]);
      String other = String.valueOf(who[1]);
      long mine = ORDERS.get(who[0]);
      assertThat(rows(c, "SELECT count(*) FROM orders").get(0).get(0).asLong()).isEqualTo(mine);
      assertThat(rows(c, "TABLE orders").size()).isEqualTo((int) mine);
      assertThat(column(rows(c, "SELECT DISTINCT customer_id FROM orders"), 0))
          .containsExactly(me);
      assertThat(rows(c, "SELECT * FROM orders WHERE customer_id = " + other)).isEmpty();
      // a join: every order, and only the caller's own customer row
      JsonNode joined = rows(c, "SELECT o.id, c.id FROM orders o JOIN customers c "
          + "ON c.id = o.customer_id");
      assertThat(joined.size()).isEqualTo((int) mine);
      assertThat(column(joined, 1)).containsExactly(me);
      assertThat(rows(c, "SELECT count(*) FROM customers").get(0).get(0).asLong()).isOne();
      // a subquery
      assertThat(rows(c, "SELECT count(*) FROM order_items WHERE order_id IN "
          + "(SELECT id FROM orders)").get(0).get(0).asLong()).isEqualTo(ITEMS.get(who[0]));
      assertThat(rows(c, "SELECT count(*) FROM order_items i WHERE EXISTS (SELECT 1 FROM "
          + "orders o WHERE o.id = i.order_id AND o.customer_id = " + other + ")").get(0).get(0)
          .asLong()).isZero();
      // UNION
      assertThat(column(rows(c, "SELECT customer_id FROM orders UNION SELECT id FROM customers"),
          0)).containsExactly(me);
      // a CTE and an aggregate
      JsonNode cte = rows(c, "WITH o AS (SELECT * FROM orders) SELECT count(*), sum(total) "
          + "FROM o").get(0);
      assertThat(cte.get(0).asLong()).isEqualTo(mine);
      assertThat(new java.math.BigDecimal(cte.get(1).asString()))
          .isEqualByComparingTo(TOTALS.get(who[0]));
      // a window function counts only visible rows
      JsonNode windowed = rows(c, "SELECT customer_id, count(*) OVER () FROM orders");
      assertThat(windowed.get(0).get(1).asLong()).isEqualTo(mine);
      assertThat(column(windowed, 0)).containsExactly(me);
      // a scalar subquery in the select list, and a lateral join
      assertThat(rows(c, "SELECT (SELECT max(customer_id) FROM orders), "
          + "(SELECT min(customer_id) FROM orders)").get(0).toString())
          .isEqualTo("[" + me + "," + me + "]");
      assertThat(rows(c, "SELECT count(*) FROM products p, LATERAL (SELECT 1 FROM order_items i "
          + "JOIN orders o ON o.id = i.order_id WHERE i.product_id = p.id LIMIT 1) x")
          .get(0).get(0).asLong()).isLessThanOrEqualTo(ITEMS.get(who[0]));
    }
  }

  @Test
  void structuredToolsResourcesAndCompletionsSeeOnlyTheCallersRows() {
    AgentClient c = server.client("alice-token").initialize();
    String me = String.valueOf(alice);
    long mine = ORDERS.get(alice);
    JsonNode sample = AgentClient.structured(c.call("sample_rows",
        "{\"table\":\"orders\",\"limit\":100}"));
    assertThat(sample.get("rowCount").asInt()).isEqualTo((int) Math.min(mine, 100));
    int customer = indexOf(sample.get("columns"), "customer_id");
    assertThat(column(sample.get("rows"), customer)).containsExactly(me);
    assertThat(AgentClient.structured(c.call("count_rows", "{\"table\":\"orders\"}"))
        .get("count").asLong()).isEqualTo(mine);
    assertThat(AgentClient.structured(c.call("count_rows", "{\"table\":\"orders\","
        + "\"filters\":[{\"column\":\"customer_id\",\"op\":\"=\",\"value\":" + bob + "}]}"))
        .get("count").asLong()).isZero();
    JsonNode top = AgentClient.structured(c.call("top_values",
        "{\"table\":\"orders\",\"column\":\"customer_id\"}"));
    assertThat(top.get("rows").asLong()).isEqualTo(mine);
    assertThat(top.get("distinct").asLong()).isOne();
    assertThat(top.get("values").get(0).get("value").asString()).isEqualTo(me);
    JsonNode describe = AgentClient.structured(c.call("describe_table", "{\"table\":\"orders\"}"));
    assertThat(describe.get("rowEstimate").isNull()).as("the catalog counts every row").isTrue();

    String count = resource(c, "db://tables/orders/count");
    assertThat(count).contains("\\\"count\\\":" + mine);
    String customers = resource(c, "db://tables/customers/sample");
    assertThat(customers).contains("[" + me + ",");
    assertThat(customers.split("\\],\\[").length).isOne();
    String orders = resource(c, "db://tables/orders/sample");
    assertThat(orders).doesNotContain("," + bob + ",");

    JsonNode completion = c.request("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\","
        + "\"name\":\"count_by_column\"},\"argument\":{\"name\":\"column\",\"value\":\"\"},"
        + "\"context\":{\"arguments\":{\"table\":\"orders\"}}}");
    assertThat(completion.toString()).contains("customer_id").doesNotContain(String.valueOf(bob));
  }

  @Test
  void aTableWithNoRowsForTheCallerLooksExactlyLikeAnEmptyTable() {
    AgentClient carol = server.client("carol-token").initialize();
    List<String[]> calls = List.of(
        new String[] {"count_rows", "{\"table\":\"%s\"}"},
        new String[] {"sample_rows", "{\"table\":\"%s\"}"},
        new String[] {"top_values", "{\"table\":\"%s\",\"column\":\"status\"}"},
        new String[] {"describe_table", "{\"table\":\"%s\"}"},
        new String[] {"query", "{\"sql\":\"SELECT count(*), max(total) FROM %s\"}"},
        new String[] {"query", "{\"sql\":\"SELECT * FROM %s\"}"});
    for (String[] call : calls) {
      String restricted = comparable(AgentClient.structured(carol.call(call[0],
          call[1].formatted("orders"))), "orders", call[0]);
      String empty = comparable(AgentClient.structured(carol.call(call[0],
          call[1].formatted("empty_orders"))), "empty_orders", call[0]);
      assertThat(restricted).as(call[0]).isEqualTo(empty);
    }
    for (String kind : List.of("count", "sample")) {
      assertThat(resource(carol, "db://tables/orders/" + kind).replace("db://tables/orders/",
          "URI")).isEqualTo(resource(carol, "db://tables/empty_orders/" + kind)
          .replace("db://tables/empty_orders/", "URI").replace("empty_orders", "orders"));
    }
  }

  /** The answer with the table's name taken out, and the parts an empty copy must differ in. */
  private static String comparable(JsonNode out, String table, String tool) {
    JsonNode copy = out.deepCopy();
    if (tool.equals("describe_table")) {
      // a copy made with LIKE has its own index and constraint names and no description
      ((tools.jackson.databind.node.ObjectNode) copy).remove("indexes");
      ((tools.jackson.databind.node.ObjectNode) copy).remove("description");
      ((tools.jackson.databind.node.ObjectNode) copy).remove("foreignKeys");
      ((tools.jackson.databind.node.ObjectNode) copy).remove("referencedBy");
      ((tools.jackson.databind.node.ObjectNode) copy).remove("columns");
    }
    return copy.toString().replace(table, "T");
  }

  private static int indexOf(JsonNode columns, String name) {
    List<String> names = new ArrayList<>();
    columns.forEach(c -> names.add(c.isObject() ? c.path("name").asString() : c.asString()));
    return names.indexOf(name);
  }

  private static String resource(AgentClient c, String uri) {
    JsonNode r = c.request("resources/read", "{\"uri\":\"" + uri + "\"}");
    assertThat(r.has("result")).as("%s: %s", uri, r).isTrue();
    return r.get("result").toString();
  }
}
