package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * With {@code --allow-writes} on a SQLite file: {@code insert_row} and {@code update_rows}
 * write through the separate read-write pool only after approval, while the read pool stays
 * read-only (a query still cannot write).
 */
class SqliteWritesTest {

  static TestSqlite file;
  static AgentServer server;

  @BeforeAll
  static void start() {
    file = TestSqlite.create();
    server = AgentServer.sqlite(file, AgentLimits.defaults(), true);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void writesHappenOnlyAfterApprovalAndQueriesStayReadOnly() {
    AgentClient admin = server.client(AgentServer.ADMIN).initialize(WritesTest.ELICITATION);
    String insert = "{\"table\":\"regions\",\"values\":{\"id\":100,\"name\":\"Antarctica\"}}";
    assertThat(AgentClient.error(admin.callAnswering("insert_row", insert,
        e -> WritesTest.DECLINE))).isEqualTo("Not approved; nothing was written");
    assertThat(WritesTest.regions(admin, "Antarctica")).isZero();
    String before = file.checksum();
    JsonNode done = AgentClient.structured(admin.callAnswering("insert_row", insert,
        e -> WritesTest.APPROVE));
    assertThat(done.get("rowsChanged").asInt()).isEqualTo(1);
    assertThat(WritesTest.regions(admin, "Antarctica")).isEqualTo(1);
    assertThat(file.checksum()).isNotEqualTo(before);

    JsonNode updated = AgentClient.structured(admin.callAnswering("update_rows",
        "{\"table\":\"regions\",\"filters\":[{\"column\":\"id\",\"op\":\"=\",\"value\":100}],"
            + "\"set\":{\"name\":\"Antarctica East\"}}", e -> WritesTest.APPROVE));
    assertThat(updated.get("rowsChanged").asInt()).isEqualTo(1);
    assertThat(WritesTest.regions(admin, "Antarctica East")).isEqualTo(1);

    assertThat(admin.call("query", "{\"sql\":\"DELETE FROM regions WHERE id = 100\"}")
        .path("isError").asBoolean()).isTrue();
    assertThat(WritesTest.regions(admin, "Antarctica East")).isEqualTo(1);
  }
}
