package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Done item 5 (second half) of the agent issue: with writes allowed, insert and update run only
 * after a person explicitly approves through elicitation (SPEC §3.6); a decline, a refusal or
 * a client that cannot ask leaves the data as it was. Without the option there are no write
 * tools at all.
 */
class WritesTest {

  static final String ELICITATION = "{\"elicitation\":{}}";
  static final String APPROVE = "{\"action\":\"accept\",\"content\":{\"approve\":true}}";
  static final String DECLINE = "{\"action\":\"decline\"}";
  static final String ACCEPT_BUT_NO = "{\"action\":\"accept\",\"content\":{\"approve\":false}}";

  static AgentServer h2;
  static AgentServer postgres;

  @BeforeAll
  static void start() {
    h2 = AgentServer.h2(AgentLimits.defaults(), true);
    postgres = AgentServer.postgres("keel_writes", AgentLimits.defaults(), true);
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

  static long regions(AgentClient admin, String name) {
    return AgentClient.structured(admin.call("count_rows", "{\"table\":\"regions\","
        + "\"filters\":[{\"column\":\"name\",\"op\":\"=\",\"value\":\"" + name + "\"}]}"))
        .get("count").asLong();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void anInsertHappensOnlyAfterAnExplicitApproval(String engine) {
    AgentClient admin = server(engine).client(AgentServer.ADMIN).initialize(ELICITATION);
    String insert = "{\"table\":\"regions\",\"values\":{\"id\":100,\"name\":\"Antarctica\"}}";

    AgentClient blind = server(engine).client(AgentServer.ADMIN).initialize();
    assertThat(AgentClient.error(blind.call("insert_row", insert)))
        .contains("cannot ask").contains("nothing was written");
    assertThat(AgentClient.error(admin.callAnswering("insert_row", insert, e -> DECLINE)))
        .isEqualTo("Not approved; nothing was written");
    assertThat(AgentClient.error(admin.callAnswering("insert_row", insert,
        e -> ACCEPT_BUT_NO))).isEqualTo("Not approved; nothing was written");
    assertThat(regions(admin, "Antarctica")).isZero();

    AtomicReference<JsonNode> asked = new AtomicReference<>();
    JsonNode done = AgentClient.structured(admin.callAnswering("insert_row", insert, e -> {
      asked.set(e);
      return APPROVE;
    }));
    assertThat(done.get("rowsChanged").asInt()).isEqualTo(1);
    assertThat(asked.get().get("params").get("message").asString())
        .contains("regions").contains("Antarctica");
    assertThat(regions(admin, "Antarctica")).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void anUpdateShowsHowManyRowsItChangesAndChangesOnlyThoseOnApproval(String engine) {
    AgentClient admin = server(engine).client(AgentServer.ADMIN).initialize(ELICITATION);
    String update = "{\"table\":\"orders\",\"set\":{\"status\":\"audited\"},"
        + "\"filters\":[{\"column\":\"id\",\"op\":\"in\",\"value\":[10,11,12]}]}";
    assertThat(AgentClient.error(admin.callAnswering("update_rows", update, e -> DECLINE)))
        .startsWith("Not approved");
    String status = "{\"table\":\"orders\",\"filters\":[{\"column\":\"status\",\"op\":\"=\","
        + "\"value\":\"audited\"}]}";
    assertThat(AgentClient.structured(admin.call("count_rows", status)).get("count").asLong())
        .isZero();

    AtomicReference<String> question = new AtomicReference<>();
    JsonNode done = AgentClient.structured(admin.callAnswering("update_rows", update, e -> {
      question.set(e.get("params").get("message").asString());
      return APPROVE;
    }));
    assertThat(question.get()).startsWith("Update 3 rows of orders");
    assertThat(done.get("rowsChanged").asInt()).isEqualTo(3);
    assertThat(AgentClient.structured(admin.call("count_rows", status)).get("count").asLong())
        .isEqualTo(3);

    String tooMany = "{\"table\":\"orders\",\"set\":{\"status\":\"gone\"},"
        + "\"filters\":[{\"column\":\"id\",\"op\":\">\",\"value\":0}]}";
    assertThat(AgentClient.error(admin.call("update_rows", tooMany)))
        .contains("more than the 100").contains("Nothing was written");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void writesCannotReachHiddenColumnsOrTables(String engine) {
    AgentClient analyst = server(engine).client(AgentServer.ANALYST).initialize(ELICITATION);
    String salary = "{\"table\":\"employees\",\"set\":{\"salary\":1},"
        + "\"filters\":[{\"column\":\"id\",\"op\":\"=\",\"value\":1}]}";
    assertThat(AgentClient.error(analyst.callAnswering("update_rows", salary, e -> {
      throw new AssertionError("nobody may be asked about a hidden column");
    }))).isEqualTo("Column not found or not allowed");
    String audit = "{\"table\":\"audit_log\",\"values\":{\"id\":1000,\"employee_id\":1,"
        + "\"action\":\"x\",\"at\":\"2025-01-01 00:00:00\"}}";
    assertThat(AgentClient.error(analyst.callAnswering("insert_row", audit, e -> {
      throw new AssertionError("nobody may be asked about a hidden table");
    }))).isEqualTo("Table not found or not allowed");
  }

  @Test
  void withoutAllowWritesThereAreNoWriteTools() {
    try (AgentServer readOnly = AgentServer.h2(AgentLimits.defaults(), false)) {
      AgentClient client = readOnly.client(AgentServer.ADMIN).initialize(ELICITATION);
      String tools = client.request("tools/list", "{}").toString();
      assertThat(tools).contains("\"query\"").doesNotContain("insert_row")
          .doesNotContain("update_rows");
      assertThat(client.request("tools/call", AgentClient.callParams("insert_row",
          "{\"table\":\"regions\",\"values\":{\"id\":7}}")).toString()).contains("error");
    }
  }

  @Test
  void approvedAndDeclinedWritesAreOnRecordWithoutTheirValues(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path audit = dir.resolve("audit.jsonl");
    try (AgentServer server = new AgentServer("h2", DatabaseAgent.builder()
        .access(AgentServer.policy()).allowWrites(true).auditFile(audit).build(),
        AgentServer.KEYS)) {
      AgentClient admin = server.client(AgentServer.ADMIN).initialize(ELICITATION);
      String insert = "{\"table\":\"regions\",\"values\":{\"id\":101,\"name\":\"Zealandia\"}}";
      admin.callAnswering("insert_row", insert, e -> DECLINE);
      admin.callAnswering("insert_row", insert, e -> APPROVE);
      admin.callAnswering("update_rows", "{\"table\":\"regions\",\"set\":{\"name\":"
          + "\"Zealandia II\"},\"filters\":[{\"column\":\"id\",\"op\":\"=\",\"value\":101}]}",
          e -> APPROVE);
    }
    java.util.List<JsonNode> lines = new java.util.ArrayList<>();
    for (String line : java.nio.file.Files.readAllLines(audit)) {
      lines.add(dev.keel.mcp.core.McpJson.standard().parse(line));
    }
    assertThat(lines).extracting(l -> l.get("tool").asString() + ":"
        + l.get("outcome").asString()).containsExactly("insert_row:write declined",
            "insert_row:write approved", "update_rows:write approved");
    assertThat(lines.get(1).get("rows").asLong()).isEqualTo(1);
    assertThat(lines.toString()).doesNotContain("Zealandia");
  }
}
