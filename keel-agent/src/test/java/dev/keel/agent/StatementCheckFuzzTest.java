package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Fuzzes the agent's promise, not one parser: any text sent to {@code query} (over real HTTP,
 * as a 2026-07-28 request) by a principal who may read everything, on an H2 database the agent
 * reaches as its administrator, so that only the agent's own check and its read-only layer stand
 * between the text and the data. Whatever the check accepts, the database afterwards holds
 * exactly what it held before: the rows, the sequence, the schema objects, the users and the
 * settings. The fuzzer starts from SQL fragments (its dictionary) and the seed texts.
 */
class StatementCheckFuzzTest {

  static final String URL = "jdbc:h2:mem:keel_statement_fuzz;DB_CLOSE_DELAY=-1;"
      + "DATABASE_TO_LOWER=TRUE";

  static AgentServer server;
  static AgentClient admin;
  static Connection direct;
  static String before;

  @BeforeAll
  static void start() throws SQLException {
    direct = DriverManager.getConnection(URL, "sa", "");
    try (Statement s = direct.createStatement()) {
      s.execute("CREATE TABLE shop (id INT PRIMARY KEY, name VARCHAR(40), price INT)");
      s.execute("INSERT INTO shop VALUES (1, 'apple', 3), (2, 'pear', 4), (3, 'fig', 9)");
      s.execute("CREATE TABLE secrets (id INT PRIMARY KEY, payload VARCHAR(40))");
      s.execute("INSERT INTO secrets VALUES (1, 'do-not-change')");
      s.execute("CREATE SEQUENCE ticket_seq START WITH 100");
    }
    before = fingerprint();
    server = new AgentServer("h2", DatabaseAgent.builder().jdbcUrl(URL).user("sa")
        .access(AccessPolicy.builder().grantAll("admin").build())
        .limits(AgentLimits.defaults().withMaxRows(5)).build(), AgentServer.KEYS);
    admin = server.client(AgentServer.ADMIN);
  }

  @AfterAll
  static void stop() throws SQLException {
    if (server != null) {
      server.close();
    }
    direct.close();
  }

  @FuzzTest
  @DictionaryEntries({"SELECT ", " FROM ", "shop", "secrets", "ticket_seq", " WHERE ", ";",
      "--", "/*", "*/", "'", "\"", "$$", "(", ")", ",", " UNION ", "WITH ", " AS ",
      "INSERT INTO ", "UPDATE ", " SET ", "DELETE ", "DROP ", "CREATE ", "ALTER ", "MERGE ",
      "CALL ", "NEXT VALUE FOR ", "NEXTVAL(", "FINAL TABLE (", "OLD TABLE (", "COMMIT",
      "ROLLBACK", "SET ", "GRANT ", "RUNSCRIPT ", "SCRIPT ", "CSVWRITE(", "FILE_WRITE(",
      "LINK_SCHEMA(", "SHUTDOWN", "TRUNCATE ", "VALUES ", "TABLE ", "EXPLAIN ", "LIMIT ",
      "FOR UPDATE", "INTO ", "RETURNING ", "'; ", "\\'", "U&'", "X'", "0x", "\u00a0", "\ufeff"})
  void queryAnything(FuzzedDataProvider data) throws SQLException {
    String sql = data.consumeRemainingAsString();
    JsonNode response = admin.modern("tools/call", "query", "{\"name\":\"query\","
        + "\"arguments\":{\"sql\":" + JsonNodeFactory.instance.stringNode(sql) + "}}");
    assertThat(response.has("result") || response.has("error")).as(response.toString())
        .isTrue();
    assertThat(response.toString()).doesNotContain("\tat ").doesNotContain("Exception");
    assertThat(fingerprint()).as("the database after %s", sql).isEqualTo(before);
  }

  /** What must not change: rows, the sequence, schema objects, users, rights, settings. */
  static String fingerprint() throws SQLException {
    StringBuilder b = new StringBuilder();
    try (Statement s = direct.createStatement()) {
      for (String q : new String[] {
          "SELECT * FROM shop ORDER BY id", "SELECT * FROM secrets ORDER BY id",
          "SELECT base_value, increment FROM information_schema.sequences",
          "SELECT table_schema, table_name, table_type FROM information_schema.tables "
              + "ORDER BY 1, 2",
          "SELECT table_name, column_name, data_type FROM information_schema.columns "
              + "WHERE table_schema = 'public' ORDER BY 1, 2",
          "SELECT routine_schema, routine_name FROM information_schema.routines ORDER BY 1, 2",
          "SELECT user_name, is_admin FROM information_schema.users ORDER BY 1",
          "SELECT role_name FROM information_schema.roles ORDER BY 1",
          "SELECT grantee, table_name, privilege_type FROM information_schema.table_privileges "
              + "ORDER BY 1, 2, 3",
          "SELECT constant_schema, constant_name FROM information_schema.constants ORDER BY 1",
          "SELECT schema_name FROM information_schema.schemata ORDER BY 1",
          "SELECT setting_name, setting_value FROM information_schema.settings "
              + "WHERE setting_name NOT IN ('info.UPDATE_COUNT', 'info.PAGE_COUNT') "
              + "ORDER BY 1"}) {
        try (ResultSet r = s.executeQuery(q)) {
          int n = r.getMetaData().getColumnCount();
          while (r.next()) {
            for (int i = 1; i <= n; i++) {
              b.append(r.getString(i)).append('|');
            }
            b.append('\n');
          }
        }
      }
    }
    return b.toString();
  }
}
