package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.db.Database;
import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.server.InputRequests;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.RequestContext;
import java.lang.reflect.Method;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The second read-only layer holds on its own: statements that the check would refuse, sent
 * straight to the runner, are refused by the database (a read-only transaction on PostgreSQL,
 * a user that may only read on the embedded H2) and change nothing.
 */
class LayerTwoTest {

  static Database h2;
  static Database postgres;

  @BeforeAll
  static void start() throws Exception {
    h2 = Database.sample(AgentLimits.defaults(), false);
    // TestPostgres lives in the agent's test package; reach it the way the tests there do.
    Class<?> support = Class.forName("dev.keel.agent.TestPostgres");
    Method get = support.getDeclaredMethod("get");
    get.setAccessible(true);
    Object pg = get.invoke(null);
    Method database = support.getDeclaredMethod("database", String.class);
    database.setAccessible(true);
    String url = (String) database.invoke(pg, "keel_layer_two");
    postgres = Database.connect(url, "keel_agent", "keel", null, AgentLimits.defaults(), false);
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

  static QueryRunner runner(String engine) {
    return new QueryRunner(engine.equals("h2") ? h2 : postgres, AgentLimits.defaults());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"h2", "postgresql"})
  void writesThatBypassTheCheckAreRefusedByTheDatabase(String engine) {
    QueryRunner runner = runner(engine);
    // Writes shaped as queries, so that only the database's own refusal can stop them.
    String[] writes = engine.equals("h2") ? new String[] {
        "SELECT * FROM OLD TABLE (DELETE FROM orders WHERE id = 1)",
        "SELECT * FROM FINAL TABLE (UPDATE orders SET status = 'lost' WHERE id = 2)",
        "SELECT * FROM FINAL TABLE (INSERT INTO regions VALUES (99, 'Atlantis'))",
        "CREATE TABLE evil (id INTEGER)"}
        : new String[] {
        "WITH d AS (DELETE FROM orders WHERE id = 1 RETURNING id) SELECT * FROM d",
        "WITH u AS (UPDATE orders SET status = 'lost' WHERE id = 2 RETURNING id) SELECT * FROM u",
        "WITH i AS (INSERT INTO regions VALUES (99, 'Atlantis') RETURNING id) SELECT * FROM i",
        "CREATE TABLE evil (id INTEGER)",
        "SELECT set_config('default_transaction_read_only', 'off', false); "
            + "DELETE FROM orders WHERE id = 1",
        "SELECT 1; COMMIT; DELETE FROM orders WHERE id = 1"};
    for (String sql : writes) {
      // refused by the engine's own reading (the driver's statement split, H2's parser) or by
      // the database itself
      assertThatThrownBy(() -> runner.read(Ctx.INSTANCE, sql, List.of(), 10))
          .as(sql).isInstanceOf(QueryFailedException.class)
          .hasMessageMatching("(Refused by the database|Refused before the database ran it|"
              + "The database refused the query).*");
    }
    ObjectNode counts = runner.read(Ctx.INSTANCE, "SELECT (SELECT count(*) FROM orders), "
        + "(SELECT count(*) FROM regions), (SELECT status FROM orders WHERE id = 2)",
        List.of(), 1);
    JsonNode row = counts.get("rows").get(0);
    assertThat(row.get(0).asLong()).isEqualTo(2500);
    assertThat(row.get(1).asLong()).isEqualTo(5);
    assertThat(row.get(2).asString()).isNotEqualTo("lost");
  }

  @org.junit.jupiter.api.Test
  void aPooledConnectionIsResetBeforeItIsReused() throws Exception {
    Class<?> support = Class.forName("dev.keel.agent.TestPostgres");
    Method get = support.getDeclaredMethod("get");
    get.setAccessible(true);
    Method database = support.getDeclaredMethod("database", String.class);
    database.setAccessible(true);
    String url = (String) database.invoke(get.invoke(null), "keel_layer_two");
    try (Database one = Database.connect(url, "keel_agent", "keel", null,
        AgentLimits.defaults().withPoolSize(1), false)) {
      QueryRunner runner = new QueryRunner(one, AgentLimits.defaults());
      runner.read(Ctx.INSTANCE, "SELECT set_config('search_path', 'pg_temp, public', false), "
          + "set_config('application_name', 'poisoned', false), "
          + "set_config('statement_timeout', '1', false), "
          + "set_config('default_transaction_read_only', 'off', false)", List.of(), 1);
      JsonNode row = runner.read(Ctx.INSTANCE, "SELECT current_setting('search_path'), "
          + "current_setting('application_name'), current_setting('statement_timeout'), "
          + "current_setting('default_transaction_read_only')", List.of(), 1)
          .get("rows").get(0);
      assertThat(row.get(0).asString()).isEqualTo("\"public\", pg_catalog, pg_temp");
      assertThat(row.get(1).asString()).isEqualTo("keel-agent-read");
      assertThat(row.get(2).asString()).isNotEqualTo("1ms");
      assertThat(row.get(3).asString()).isEqualTo("on");
    }
  }

  @org.junit.jupiter.api.Test
  void theReadSessionsStayReadOnlyAfterACommit() throws Exception {
    try (java.sql.Connection c = postgres.reads().getConnection();
        java.sql.Statement s = c.createStatement()) {
      c.setAutoCommit(true);
      s.execute("COMMIT");
      assertThatThrownBy(() -> s.execute("DELETE FROM orders WHERE id = 3"))
          .hasMessageContaining("read-only transaction");
      c.setAutoCommit(false);
    }
  }

  /** A request context of a local caller that is never cancelled. */
  enum Ctx implements RequestContext {
    INSTANCE;

    @Override
    public CancellationToken cancellation() {
      return CancellationToken.none();
    }

    @Override
    public Principal principal() {
      return Principal.local();
    }

    @Override
    public String sessionId() {
      return null;
    }

    @Override
    public String protocolVersion() {
      return "2025-11-25";
    }

    @Override
    public ClientCapabilities clientCapabilities() {
      return ClientCapabilities.none();
    }

    @Override
    public Implementation clientInfo() {
      return null;
    }

    @Override
    public RequestId requestId() {
      return null;
    }

    @Override
    public String method() {
      return "tools/call";
    }

    @Override
    public ObjectNode meta() {
      return null;
    }

    @Override
    public void progress(double progress, Double total, String message) {}

    @Override
    public void log(LoggingLevel level, String message) {}

    @Override
    public void log(LoggingLevel level, String logger, JsonNode data) {}

    @Override
    public InputRequests inputs() {
      throw new UnsupportedOperationException();
    }

    @Override
    public ElicitResult elicit(String key, ElicitRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CreateMessageResult sample(String key, CreateMessageRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Root> listRoots(String key) {
      throw new UnsupportedOperationException();
    }

    @Override
    public ElicitResult elicit(ElicitRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public CreateMessageResult sample(CreateMessageRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public List<Root> listRoots() {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean requireApproval(String message) {
      return false;
    }

    @Override
    public void closeStreamForPolling() {}
  }
}
