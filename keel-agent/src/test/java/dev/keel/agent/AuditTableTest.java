package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * The audit trail written to a table: on the test PostgreSQL, into a table an operator made
 * and granted insert on, the same entries as the file (time, principal, fingerprint, source,
 * tool, digest, statement, outcome, reason, rows) and never a password or a hidden value; on a
 * SQLite file, a table the agent creates, which keeps being written after it was dropped (the
 * entries wait and go into the table made again); and a table that cannot be used stops the
 * start, naming the URL and never the password.
 */
class AuditTableTest {

  @Test
  void everyDecisionIsARowLikeTheFilesLine(@TempDir Path dir) throws Exception {
    TestPostgres pg = TestPostgres.get();
    String url = pg.database("keel_audit_sink");
    try (Connection c = pg.superuser("keel_audit_sink"); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS ops");
      s.execute("DROP TABLE IF EXISTS ops.agent_audit");
      s.execute("CREATE TABLE ops.agent_audit (recorded_at TIMESTAMP NOT NULL, principal TEXT, "
          + "fingerprint TEXT, source_name TEXT, tool TEXT, digest CHAR(64), statement TEXT, "
          + "outcome TEXT NOT NULL, reason TEXT, millis BIGINT, row_count BIGINT)");
      s.execute("GRANT USAGE ON SCHEMA ops TO " + TestPostgres.AGENT_USER);
      s.execute("GRANT SELECT, INSERT ON ops.agent_audit TO " + TestPostgres.AGENT_USER);
    }
    Path file = dir.resolve("audit.jsonl");
    try (AgentServer server = new AgentServer("h2", DatabaseAgent.builder()
        .access(AgentServer.policy()).auditFile(file)
        .auditTable(new AuditTable(url, TestPostgres.AGENT_USER, TestPostgres.AGENT_PASSWORD,
            "ops.agent_audit")).build(), AgentServer.KEYS)) {
      AgentClient analyst = server.client(AgentServer.ANALYST).initialize();
      analyst.call("query", "{\"sql\":\"SELECT name FROM regions ORDER BY id\"}");
      analyst.call("query", "{\"sql\":\"SELECT salary FROM employees\"}");
      analyst.call("query", "{\"sql\":\"DELETE FROM orders\"}");
      analyst.call("count_rows", "{\"table\":\"orders\"}");
    }
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      lines.add(McpJson.standard().parse(line));
    }
    List<Map<String, Object>> rows = new ArrayList<>();
    try (Connection c = pg.superuser("keel_audit_sink"); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM ops.agent_audit ORDER BY recorded_at")) {
      while (rs.next()) {
        Map<String, Object> row = new java.util.LinkedHashMap<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          row.put(rs.getMetaData().getColumnLabel(i), rs.getObject(i));
        }
        rows.add(row);
      }
    }
    assertThat(rows).hasSize(4).hasSameSizeAs(lines);
    for (int i = 0; i < rows.size(); i++) {
      Map<String, Object> row = rows.get(i);
      JsonNode line = lines.get(i);
      assertThat(row.get("principal")).isEqualTo("analyst");
      assertThat(row.get("fingerprint")).isEqualTo(line.get("fingerprint").asString());
      assertThat(row.get("source_name")).isEqualTo(DatabaseAgent.DEFAULT_SOURCE);
      assertThat(row.get("tool")).isEqualTo(line.get("tool").asString());
      assertThat(row.get("digest")).isEqualTo(line.get("digest").asString());
      assertThat(row.get("statement")).isEqualTo(line.get("statement").asString());
      assertThat(row.get("outcome")).isEqualTo(line.get("outcome").asString());
      assertThat(row.get("reason")).isEqualTo(line.path("reason").asString(null));
      assertThat(row.get("row_count")).isEqualTo(line.has("rows") ? line.get("rows").asLong()
          : null);
      // PostgreSQL rounds to microseconds
      java.time.Instant time = java.time.Instant.parse(line.get("time").asString());
      assertThat(((java.sql.Timestamp) row.get("recorded_at")).toInstant())
          .isBetween(time.minusNanos(1_000), time.plusNanos(1_000));
    }
    assertThat(rows).extracting(r -> r.get("tool") + ":" + r.get("outcome")).containsExactly(
        "query:ran", "query:failed", "query:refused", "count_rows:ran");
    assertThat(rows.get(0).get("row_count")).isEqualTo(5L);
    assertThat(rows.toString()).doesNotContain(TestPostgres.AGENT_PASSWORD + ",")
        .doesNotContain("analyst-secret");
  }

  @Test
  void theTableIsCreatedAndWrittenAgainAfterItWent(@TempDir Path dir) throws Exception {
    String url = "jdbc:sqlite:" + dir.resolve("audit.db");
    try (AgentServer server = new AgentServer("h2", DatabaseAgent.builder()
        .access(AgentServer.policy()).auditTable(AuditTable.of(url, null, null)).build(),
        AgentServer.KEYS)) {
      AgentClient admin = server.client(AgentServer.ADMIN).initialize();
      admin.call("count_rows", "{\"table\":\"orders\"}");
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
          .until(() -> count(url) == 1);
      try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
        s.execute("DROP TABLE keel_audit");
      }
      admin.call("count_rows", "{\"table\":\"customers\"}");
      admin.call("count_rows", "{\"table\":\"products\"}");
      // the agent kept serving; the entries wait and go into the table made again
      org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
          .until(() -> count(url) == 2);
    }
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT statement FROM keel_audit ORDER BY recorded_at")) {
      List<String> statements = new ArrayList<>();
      while (rs.next()) {
        statements.add(rs.getString(1));
      }
      assertThat(statements).hasSize(2).allSatisfy(t -> assertThat(t).contains("count_rows"))
          .anySatisfy(t -> assertThat(t).contains("customers"))
          .anySatisfy(t -> assertThat(t).contains("products"));
    }
  }

  @Test
  void aTableThatCannotBeUsedStopsTheStartWithoutThePassword() {
    TestPostgres pg = TestPostgres.get();
    String url = pg.database("keel_audit_sink");
    assertThatThrownBy(() -> DatabaseAgent.builder().auditTable(new AuditTable(url,
        TestPostgres.AGENT_USER, "wrong-password-123", "keel_audit")).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("cannot use the audit table keel_audit at " + url)
        .hasMessageNotContaining("wrong-password-123");
    assertThatThrownBy(() -> new AuditTable(url, null, null, "audit; DROP TABLE x"))
        .hasMessageContaining("letters, digits and _");
    assertThat(new AuditTable(url, "u", "secret-pw", null).toString())
        .doesNotContain("secret-pw").contains("keel_audit");
  }

  private static long count(String url) {
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM keel_audit")) {
      rs.next();
      return rs.getLong(1);
    } catch (java.sql.SQLException e) {
      // dropped and not made again yet
      return -1;
    }
  }
}
