package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Done item 5 (first half) of the agent issue: two principals with different grants see
 * different table lists, resources, completions, prompts and errors, and a table or column one
 * of them may not see is answered exactly like one that does not exist.
 */
class PrincipalsTest {

  static AgentServer h2;
  static AgentServer postgres;

  @BeforeAll
  static void start() {
    h2 = AgentServer.h2(AgentLimits.defaults(), false);
    postgres = AgentServer.postgres("keel_principals", AgentLimits.defaults(), false);
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

  static AgentServer server(String engine) {
    return engine.equals("h2") ? h2 : postgres;
  }

  static List<String> names(JsonNode tables) {
    List<String> names = new ArrayList<>();
    tables.forEach(t -> names.add(t.get("name").asString()));
    return names;
  }

  static List<String> values(JsonNode completion) {
    List<String> values = new ArrayList<>();
    completion.get("result").get("completion").get("values").forEach(v -> values.add(
        v.asString()));
    return values;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void eachPrincipalListsOnlyItsTablesAndColumns(String engine) {
    AgentClient analyst = server(engine).client(AgentServer.ANALYST).initialize();
    AgentClient auditor = server(engine).client(AgentServer.AUDITOR).initialize();
    assertThat(names(AgentClient.structured(analyst.call("list_tables", "{}")).get("tables")))
        .containsExactly("customers", "employees", "order_items", "orders", "products",
            "regions");
    assertThat(names(AgentClient.structured(auditor.call("list_tables", "{}")).get("tables")))
        .containsExactly("audit_log", "employees");

    JsonNode analystView = AgentClient.structured(analyst.call("describe_table",
        "{\"table\":\"employees\"}"));
    assertThat(names(analystView.get("columns")))
        .containsExactly("id", "name", "title", "region_id");
    assertThat(analystView.toString()).as("no key from a hidden table")
        .doesNotContain("audit_log");
    JsonNode auditorView = AgentClient.structured(auditor.call("describe_table",
        "{\"table\":\"employees\"}"));
    assertThat(names(auditorView.get("columns"))).contains("salary", "hired_on");
    assertThat(auditorView.get("referencedBy").toString()).contains("audit_log");

    // Rows follow the same grants, whichever way they are read.
    assertThat(AgentClient.structured(analyst.call("query", "{\"sql\":\"SELECT * FROM "
        + "employees\",\"maxRows\":1}")).get("columns").size()).isEqualTo(4);
    assertThat(AgentClient.structured(auditor.call("query", "{\"sql\":\"SELECT * FROM "
        + "employees\",\"maxRows\":1}")).get("columns").size()).isEqualTo(6);
    assertThat(AgentClient.structured(analyst.call("sample_rows", "{\"table\":\"customers\","
        + "\"limit\":2}")).toString()).doesNotContain("example.com");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void aHiddenTableOrColumnIsAnsweredLikeOneThatDoesNotExist(String engine) {
    AgentClient analyst = server(engine).client(AgentServer.ANALYST).initialize();
    AgentClient auditor = server(engine).client(AgentServer.AUDITOR).initialize();
    Map<String, String[]> pairs = Map.of(
        "query", new String[] {"{\"sql\":\"SELECT * FROM audit_log\"}",
            "{\"sql\":\"SELECT * FROM no_such_table\"}"},
        "describe_table", new String[] {"{\"table\":\"audit_log\"}",
            "{\"table\":\"no_such_table\"}"},
        "count_rows", new String[] {"{\"table\":\"audit_log\"}", "{\"table\":\"nope\"}"},
        "top_values", new String[] {"{\"table\":\"employees\",\"column\":\"salary\"}",
            "{\"table\":\"employees\",\"column\":\"no_such_column\"}"});
    pairs.forEach((tool, args) -> {
      String hidden = AgentClient.error(analyst.call(tool, args[0]));
      String missing = AgentClient.error(analyst.call(tool, args[1]));
      assertThat(hidden).as(tool).isEqualTo(missing).doesNotContain("audit_log")
          .doesNotContain("salary");
    });
    // a database error the user can act on, the same for both (not a failure of the tool)
    assertThat(AgentClient.error(analyst.call("query",
        "{\"sql\":\"SELECT salary FROM employees\"}"))).isEqualTo(AgentClient.error(
            analyst.call("query", "{\"sql\":\"SELECT no_such_column FROM employees\"}")))
        .isEqualTo("A column in the query was not found or is not allowed");
    // The auditor reads what the analyst may not.
    assertThat(AgentClient.structured(auditor.call("count_rows", "{\"table\":\"audit_log\"}"))
        .get("count").asLong()).isEqualTo(300);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void resourcesFollowTheGrants(String engine) {
    AgentClient analyst = server(engine).client(AgentServer.ANALYST).initialize();
    AgentClient auditor = server(engine).client(AgentServer.AUDITOR).initialize();
    String analystTables = analyst.request("resources/read", "{\"uri\":\"db://tables\"}")
        .toString();
    assertThat(analystTables).contains("orders").doesNotContain("audit_log");
    assertThat(auditor.request("resources/read", "{\"uri\":\"db://tables\"}").toString())
        .contains("audit_log").doesNotContain("orders");

    JsonNode hidden = analyst.request("resources/read",
        "{\"uri\":\"db://tables/audit_log/schema\"}");
    JsonNode missing = analyst.request("resources/read",
        "{\"uri\":\"db://tables/no_such_table/schema\"}");
    assertThat(hidden.get("error").toString()).isEqualTo(missing.get("error").toString())
        .doesNotContain("audit_log");
    JsonNode count = auditor.request("resources/read", "{\"uri\":\"db://tables/audit_log/count\"}");
    assertThat(count.get("result").toString()).contains("300");
    String sample = analyst.request("resources/read",
        "{\"uri\":\"db://tables/employees/sample\"}").toString();
    assertThat(sample).contains("region_id").doesNotContain("salary");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void completionsAndPromptsFollowTheGrants(String engine) {
    AgentClient analyst = server(engine).client(AgentServer.ANALYST).initialize();
    AgentClient auditor = server(engine).client(AgentServer.AUDITOR).initialize();
    String tables = "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"explore_table\"},"
        + "\"argument\":{\"name\":\"table\",\"value\":\"\"}}";
    assertThat(values(analyst.request("completion/complete", tables)))
        .contains("orders").doesNotContain("audit_log");
    assertThat(values(auditor.request("completion/complete", tables)))
        .containsExactly("audit_log", "employees");
    String templateTables = "{\"ref\":{\"type\":\"ref/resource\","
        + "\"uri\":\"db://tables/{table}/schema\"},\"argument\":{\"name\":\"table\","
        + "\"value\":\"a\"}}";
    assertThat(values(analyst.request("completion/complete", templateTables))).isEmpty();
    assertThat(values(auditor.request("completion/complete", templateTables)))
        .containsExactly("audit_log");
    String columns = "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"count_by_column\"},"
        + "\"argument\":{\"name\":\"column\",\"value\":\"\"},"
        + "\"context\":{\"arguments\":{\"table\":\"employees\"}}}";
    assertThat(values(analyst.request("completion/complete", columns)))
        .containsExactly("id", "name", "region_id", "title");
    assertThat(values(auditor.request("completion/complete", columns))).contains("salary");

    String overview = analyst.request("prompts/get", "{\"name\":\"explore_database\"}")
        .toString();
    assertThat(overview).contains("orders");
    for (String hidden : AgentServer.HIDDEN_FROM_ANALYST) {
      assertThat(overview).doesNotContain(hidden);
    }
    JsonNode hiddenPrompt = analyst.request("prompts/get", "{\"name\":\"explore_table\","
        + "\"arguments\":{\"table\":\"audit_log\"}}");
    JsonNode missingPrompt = analyst.request("prompts/get", "{\"name\":\"explore_table\","
        + "\"arguments\":{\"table\":\"nope\"}}");
    assertThat(hiddenPrompt.get("error").toString())
        .isEqualTo(missingPrompt.get("error").toString());
    assertThat(auditor.request("prompts/get", "{\"name\":\"count_by_column\",\"arguments\":"
        + "{\"table\":\"audit_log\",\"column\":\"action\"}}").toString()).contains("login");
  }
}
