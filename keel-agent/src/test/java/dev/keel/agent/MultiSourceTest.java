package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * One agent serving three sources on three engines: the embedded H2 sample, the test
 * PostgreSQL and a SQLite file. {@code alice} may use the first two; the third (SQLite) does
 * not exist for her: every tool, resource, prompt and completion that names it
 * answers exactly as for a source that does not exist, and nothing she can list names it.
 */
class MultiSourceTest {

  static AgentServer server;
  static final String HIDDEN = "files";

  @BeforeAll
  static void start() {
    AccessPolicy shared = AccessPolicy.builder().grantAll("alice").grantAll("admin").build();
    AccessPolicy adminOnly = AccessPolicy.builder().grantAll("admin").build();
    TestPostgres pg = TestPostgres.get();
    DatabaseAgent agent = DatabaseAgent.builder()
        .source(DatabaseSource.sample("shop").withAccess(shared))
        .source(DatabaseSource.of("warehouse", pg.database("keel_sources"),
            TestPostgres.AGENT_USER, TestPostgres.AGENT_PASSWORD).withAccess(shared))
        .source(DatabaseSource.of(HIDDEN, TestSqlite.create().url(), null, null)
            .withAccess(adminOnly))
        .tool(new CuratedTool("hidden_orders", "Orders of the third source", HIDDEN,
            "SELECT count(*) FROM orders", List.of()))
        .build();
    server = new AgentServer("three engines", agent, Map.of("alice-secret", "alice",
        "admin-secret", "admin"));
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void eachSourceIsServedByItsOwnDatabase() {
    AgentClient admin = server.client("admin-secret").initialize();
    JsonNode sources = AgentClient.structured(admin.call("list_sources", "{}")).get("sources");
    assertThat(sources.size()).isEqualTo(3);
    List<String> engines = new ArrayList<>();
    for (JsonNode source : sources) {
      engines.add(source.get("name").asString() + ":" + source.get("database").asString()
          .split(" ")[0]);
    }
    assertThat(engines).containsExactly("shop:H2", "warehouse:PostgreSQL", HIDDEN + ":SQLite");
    for (String source : List.of("shop", "warehouse", HIDDEN)) {
      JsonNode counted = AgentClient.structured(admin.call("count_rows",
          "{\"source\":\"" + source + "\",\"table\":\"orders\"}"));
      assertThat(counted.get("count").asLong()).as(source).isEqualTo(2500);
    }
  }

  @Test
  void aSourceThePrincipalMayNotUseIsIndistinguishableFromAMissingOne() {
    AgentClient alice = server.client("alice-secret").initialize();
    JsonNode mine = AgentClient.structured(alice.call("list_sources", "{}"));
    assertThat(mine.toString()).contains("shop").contains("warehouse").doesNotContain(HIDDEN);
    // without a source, a call goes to her first source
    assertThat(AgentClient.structured(alice.call("count_rows", "{\"table\":\"orders\"}"))
        .get("count").asLong()).isEqualTo(2500);

    String[][] calls = {{"list_tables", "{%s}"}, {"describe_table", "{%s,\"table\":\"orders\"}"},
        {"sample_rows", "{%s,\"table\":\"orders\"}"}, {"count_rows", "{%s,\"table\":\"orders\"}"},
        {"top_values", "{%s,\"table\":\"orders\",\"column\":\"status\"}"},
        {"query", "{%s,\"sql\":\"SELECT 1\"}"}, {"explain", "{%s,\"sql\":\"SELECT 1\"}"}};
    for (String[] call : calls) {
      String hidden = alice.callText(call[0], call[1].formatted("\"source\":\"" + HIDDEN + "\""));
      String missing = alice.callText(call[0], call[1].formatted("\"source\":\"nowhere\""));
      assertThat(hidden.replaceAll("\"id\":\\d+", "")).as(call[0])
          .isEqualTo(missing.replaceAll("\"id\":\\d+", "")).contains("Source not found or not "
              + "allowed").doesNotContain(HIDDEN);
    }
    assertThat(alice.callText("hidden_orders", "{}")).contains("Source not found or not allowed");

    for (String uri : List.of("db://%s/tables", "db://%s/tables/orders/schema",
        "db://%s/tables/orders/count", "db://%s/tables/orders/sample")) {
      String hidden = alice.request("resources/read", "{\"uri\":\"" + uri.formatted(HIDDEN)
          + "\"}").path("error").toString();
      String missing = alice.request("resources/read", "{\"uri\":\"" + uri.formatted("nowhere")
          + "\"}").path("error").toString();
      assertThat(hidden).as(uri).isEqualTo(missing).contains("not found").doesNotContain(HIDDEN);
    }
    for (String prompt : List.of("explore_database", "explore_table")) {
      String args = prompt.equals("explore_table") ? ",\"table\":\"orders\"" : "";
      String hidden = alice.request("prompts/get", "{\"name\":\"" + prompt + "\",\"arguments\":"
          + "{\"source\":\"" + HIDDEN + "\"" + args + "}}").path("error").toString();
      String missing = alice.request("prompts/get", "{\"name\":\"" + prompt + "\",\"arguments\":"
          + "{\"source\":\"nowhere\"" + args + "}}").path("error").toString();
      assertThat(hidden).as(prompt).isEqualTo(missing).isNotEmpty().doesNotContain(HIDDEN);
    }
    JsonNode sources = alice.request("completion/complete", "{\"ref\":{\"type\":\"ref/prompt\","
        + "\"name\":\"explore_table\"},\"argument\":{\"name\":\"source\",\"value\":\"\"}}");
    assertThat(sources.get("result").get("completion").get("values").toString())
        .isEqualTo("[\"shop\",\"warehouse\"]");
    String hiddenTables = alice.request("completion/complete", "{\"ref\":{\"type\":"
        + "\"ref/prompt\",\"name\":\"explore_table\"},\"argument\":{\"name\":\"table\","
        + "\"value\":\"\"},\"context\":{\"arguments\":{\"source\":\"" + HIDDEN + "\"}}}")
        .get("result").toString();
    String missingTables = alice.request("completion/complete", "{\"ref\":{\"type\":"
        + "\"ref/prompt\",\"name\":\"explore_table\"},\"argument\":{\"name\":\"table\","
        + "\"value\":\"\"},\"context\":{\"arguments\":{\"source\":\"nowhere\"}}}")
        .get("result").toString();
    assertThat(hiddenTables).isEqualTo(missingTables).doesNotContain("orders");
    JsonNode templates = alice.request("resources/templates/list", "{}");
    assertThat(templates.toString()).doesNotContain(HIDDEN);
    JsonNode tools = alice.request("tools/list", "{}");
    assertThat(tools.toString()).doesNotContain("\"" + HIDDEN + "\"");
  }
}
