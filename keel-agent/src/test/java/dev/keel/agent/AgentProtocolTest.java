package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Done item 6 of the agent issue: the agent passes the protocol checks the fixture server
 * passes where they apply, because it is built on the same server: initialize, the lists,
 * calls with structured output, the stateless era, and session ownership between two API
 * keys. (Cancellation of a running query: {@link CancellationTest}.)
 */
class AgentProtocolTest {

  static final List<String> READ_TOOLS = List.of("list_tables", "describe_table",
      "sample_rows", "count_rows", "top_values", "query", "explain",
      // the analysis tools (AnalysisTools), offered on every engine
      "suggest_indexes", "slow_statements", "health", "list_sources");

  static AgentServer server;

  @BeforeAll
  static void start() {
    server = AgentServer.h2(AgentLimits.defaults(), false);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void initializeDeclaresToolsResourcesPromptsAndCompletions() {
    AgentClient client = server.client(AgentServer.ADMIN);
    HttpResponse<String> r = client.post(null, AgentClient.body(1, "initialize",
        "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
            + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}"), null);
    JsonNode result = AgentClient.responseOf(r.body(), 1).get("result");
    assertThat(result.get("serverInfo").get("name").asString()).isEqualTo("keel-agent");
    assertThat(result.get("capabilities").has("tools")).isTrue();
    assertThat(result.get("capabilities").has("resources")).isTrue();
    assertThat(result.get("capabilities").has("prompts")).isTrue();
    assertThat(result.get("capabilities").has("completions")).isTrue();
    assertThat(result.get("instructions").asString()).contains("list_tables");
  }

  @Test
  void everyReadToolIsReadOnlyAndDeclaresItsOutputSchema() {
    AgentClient client = server.client(AgentServer.ADMIN).initialize();
    JsonNode tools = client.request("tools/list", "{}").get("result").get("tools");
    List<String> names = new ArrayList<>();
    for (JsonNode tool : tools) {
      names.add(tool.get("name").asString());
      assertThat(tool.get("outputSchema").get("type").asString()).isEqualTo("object");
      assertThat(tool.get("annotations").get("readOnlyHint").asBoolean()).isTrue();
      assertThat(tool.get("description").asString()).isNotBlank();
    }
    assertThat(names).containsExactlyInAnyOrderElementsOf(READ_TOOLS);
  }

  @Test
  void callsReturnStructuredContentAndTextAndValidateTheirArguments() {
    AgentClient client = server.client(AgentServer.ADMIN).initialize();
    JsonNode result = client.call("query", "{\"sql\":\"SELECT status, count(*) AS n FROM orders"
        + " WHERE total > ? GROUP BY status ORDER BY status\",\"params\":[100]}");
    JsonNode rows = AgentClient.structured(result);
    assertThat(rows.get("columns").get(0).get("name").asString()).isEqualTo("status");
    assertThat(rows.get("rowCount").asInt()).isEqualTo(5);
    assertThat(result.get("content").get(0).get("text").asString()).contains("delivered");

    assertThat(AgentClient.error(client.call("query", "{}"))).contains("Invalid arguments");
    assertThat(AgentClient.error(client.call("query", "{\"sql\":\"SELECT ?\"}")))
        .contains("1 ? parameter but 0 values were given");
    assertThat(AgentClient.error(client.call("sample_rows", "{\"table\":\"orders\","
        + "\"limit\":1000}"))).contains("Invalid arguments");
    assertThat(client.request("tools/call", AgentClient.callParams("no_such_tool", "{}"))
        .get("error").get("code").asInt()).isEqualTo(-32602);
  }

  @Test
  void resourcesTemplatesAndPromptsAreListedAndRead() {
    AgentClient client = server.client(AgentServer.ADMIN).initialize();
    assertThat(client.request("resources/list", "{}").toString()).contains("db://tables");
    String templates = client.request("resources/templates/list", "{}").toString();
    assertThat(templates).contains("db://tables/{table}/schema", "db://tables/{table}/count",
        "db://tables/{table}/sample");
    JsonNode schema = client.request("resources/read",
        "{\"uri\":\"db://tables/orders/schema\"}").get("result").get("contents").get(0);
    assertThat(schema.get("mimeType").asString()).isEqualTo("application/json");
    assertThat(schema.get("text").asString()).contains("customer_id");
    assertThat(client.request("resources/read", "{\"uri\":\"db://tables/orders/count\"}")
        .toString()).contains("2500");
    String prompts = client.request("prompts/list", "{}").toString();
    assertThat(prompts).contains("explore_database", "explore_table", "count_by_column");
    assertThat(client.request("prompts/get", "{\"name\":\"count_by_column\",\"arguments\":"
        + "{\"table\":\"orders\",\"column\":\"status\"}}").toString()).contains("delivered");
  }

  @Test
  void theStatelessEraServesTheSameTools() {
    AgentClient client = server.client(AgentServer.ADMIN);
    JsonNode discover = client.modern("server/discover", null, "{}");
    assertThat(discover.get("result").get("supportedVersions").toString())
        .contains(AgentClient.MODERN);
    JsonNode call = client.modern("tools/call", "count_rows",
        "{\"name\":\"count_rows\",\"arguments\":{\"table\":\"customers\"}}");
    assertThat(call.get("result").get("structuredContent").get("count").asLong())
        .isEqualTo(600);
    assertThat(call.get("result").get("resultType").asString()).isEqualTo("complete");
  }

  @Test
  void aSessionAnswersOnlyItsOwner() {
    AgentClient analyst = server.client(AgentServer.ANALYST).initialize();
    AgentClient auditor = server.client(AgentServer.AUDITOR);
    String ping = AgentClient.body(5, "ping", null);
    assertThat(auditor.post(analyst.session, ping, null).statusCode()).isEqualTo(404);
    HttpResponse<String> unknown = auditor.post("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        ping, null);
    assertThat(auditor.post(analyst.session, ping, null).body()).isEqualTo(unknown.body());
    assertThat(analyst.post(analyst.session, ping, null).statusCode()).isEqualTo(200);
    AgentClient nobody = server.client("wrong-secret");
    assertThat(nobody.post(null, AgentClient.body(1, "initialize", "{}"), null).statusCode())
        .isEqualTo(401);
  }
}
