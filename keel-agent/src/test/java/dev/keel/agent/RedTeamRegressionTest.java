package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The findings of the red team of issue 14, each as it was reported, against the agent served
 * over real HTTP: on a real PostgreSQL 15 whose agent role may write everything (bob sees
 * {@code customers} without {@code ssn} and {@code orders}; {@code secrets} is hidden), and on
 * the embedded H2 sample (the analyst of {@link AgentServer}). Every one of these broke the
 * agent's promises before the fix.
 */
class RedTeamRegressionTest {

  static final String DB = "keel_redteam";
  /**
   * On PostgreSQL: the default timeout (eight 200 MB values take a while on two cores), and a
   * time budget no run of this class can use up. Bob runs eight 10 s sleeps twice and reads eight
   * 200 MB values, each as eight statements at once: on a slow machine that passed the default
   * five minutes of statement time per minute, and the budget (TimeBudgetTest's subject) refused
   * the values' reads, so a finding failed on a limit it is not about (a CI run, 2026-12-04).
   */
  static final AgentLimits LIMITS = AgentLimits.defaults().withMaxConcurrentQueries(8)
      .withTimeBudgetPerMinute(Duration.ofHours(1));
  /** On H2: a short timeout, to see it hold. */
  static final AgentLimits H2_LIMITS = LIMITS.withStatementTimeout(Duration.ofSeconds(2));

  static AgentServer postgres;
  static AgentServer postgresApp;
  static AgentServer h2;

  @BeforeAll
  static void start() {
    String url = RedTeamDatabase.url(DB);
    postgres = new AgentServer("postgresql", DatabaseAgent.builder().jdbcUrl(url)
        .user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD)
        .access(RedTeamDatabase.policy()).limits(LIMITS).build(), RedTeamDatabase.KEYS);
    postgresApp = new AgentServer("postgresql/app", DatabaseAgent.builder().jdbcUrl(url)
        .user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD).schema("app")
        .access(RedTeamDatabase.policy()).limits(LIMITS).build(), RedTeamDatabase.KEYS);
    h2 = AgentServer.h2(H2_LIMITS, false);
  }

  @AfterAll
  static void stop() {
    for (AgentServer s : new AgentServer[] {postgres, postgresApp, h2}) {
      if (s != null) {
        s.close();
      }
    }
  }

  static String sqlArgs(String sql) {
    return "{\"sql\":" + JsonNodeFactory.instance.stringNode(sql) + "}";
  }

  /** Sends {@code sql} to the query tool as bob and returns the whole answer as text. */
  static String asBob(AgentServer server, String sql) {
    return server.client(RedTeamDatabase.BOB).initialize().callText("query", sqlArgs(sql));
  }

  static void assertNothingHiddenIn(String answer) {
    assertThat(answer).doesNotContain(RedTeamDatabase.SECRET_PAYLOAD)
        .doesNotContain(RedTeamDatabase.SSN).doesNotContain("pwned");
  }

  static String applicationNames() throws Exception {
    try (Connection c = TestPostgres.get().superuser(DB); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT string_agg(DISTINCT application_name, ',') "
            + "FROM pg_stat_activity WHERE datname = '" + DB + "'")) {
      rs.next();
      return String.valueOf(rs.getString(1));
    }
  }

  @Test
  void finding01_doubleSlashIsAnOperatorToPostgresNotAComment() throws Exception {
    String answer = asBob(postgres, "SELECT 4 //* x */ 2 AS a, (SELECT string_agg(payload, ',')"
        + " FROM secrets) AS p, (SELECT string_agg(ssn, ',') FROM (SELECT ssn FROM customers "
        + "ORDER BY id LIMIT 2) s) AS ssn\n");
    assertNothingHiddenIn(answer);
    assertThat(answer).contains("\"isError\":true");
    String settings = asBob(postgres, "SELECT 4 //* x */ 2 AS a, "
        + "set_config('application_name','pwned',false)\n");
    assertThat(settings).contains("\"isError\":true");
    assertThat(applicationNames()).doesNotContain("pwned");
  }

  @Test
  void finding02_taggedDollarQuotesAreStringsToPostgres() {
    String answer = asBob(postgres, "SELECT $a$ || ' $a$ , (SELECT string_agg(payload, ',') "
        + "FROM secrets) AS p -- '");
    assertNothingHiddenIn(answer);
    assertThat(answer).contains("\"isError\":true");
  }

  @Test
  void finding03_aSmuggledCommitCannotEndTheReadOnlyTransaction() throws Exception {
    Map<String, String> before = RedTeamDatabase.state(DB);
    String answer = asBob(postgres, "SELECT 4 //* x */ 2; COMMIT; UPDATE secrets SET payload = "
        + "'overwritten-by-bob' WHERE id = 1; DELETE FROM orders WHERE id > 995");
    assertThat(answer).contains("\"isError\":true");
    for (String smuggled : List.of("SELECT nextval('ticket_seq')",
        "CREATE TEMP TABLE bob_was_here AS SELECT 1 AS x")) {
      asBob(postgres, "SELECT 4 //* x */ 2; COMMIT; " + smuggled);
    }
    assertThat(RedTeamDatabase.state(DB)).isEqualTo(before);
  }

  @Test
  void finding04_onePrincipalCannotPoisonAnotherThroughThePool() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(12);
    try {
      List<CompletableFuture<String>> smuggles = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        smuggles.add(CompletableFuture.supplyAsync(() -> asBob(postgres,
            "SELECT 4 //* x */ 2; COMMIT; CREATE TEMP TABLE IF NOT EXISTS orders AS SELECT 1 AS id, "
                + "'spoofed-by-bob'::text AS status"), pool));
      }
      smuggles.forEach(CompletableFuture::join);
    } finally {
      pool.shutdownNow();
    }
    AgentClient alice = postgres.client(RedTeamDatabase.ALICE).initialize();
    for (int i = 0; i < 10; i++) {
      String answer = alice.callText("query",
          sqlArgs("SELECT status, count(*) FROM orders GROUP BY status"));
      assertThat(answer).doesNotContain("spoofed-by-bob").contains("delivered");
    }
  }

  @Test
  void finding05_aWithNameCannotShadowARealTableOnH2() {
    AgentClient analyst = h2.client(AgentServer.ANALYST).initialize();
    String employees = analyst.callText("query",
        sqlArgs("WITH employees AS (SELECT 1 AS x) SELECT * FROM employees LIMIT 2"));
    assertThat(employees.toLowerCase()).doesNotContain("salary");
    String customers = analyst.callText("query",
        sqlArgs("WITH customers AS (SELECT 1 AS x) SELECT id, email FROM customers"));
    assertThat(customers).doesNotContain("@");
    assertThat(customers).contains("\"isError\":true");
  }

  @Test
  void finding06_theExposedSchemaIsTheOneQueriesRead() {
    AgentClient bob = postgresApp.client(RedTeamDatabase.BOB).initialize();
    JsonNode described = AgentClient.structured(bob.call("describe_table",
        "{\"table\":\"orders\"}"));
    assertThat(described.get("columns").toString()).contains("note");
    JsonNode rows = AgentClient.structured(bob.call("query",
        sqlArgs("SELECT * FROM orders ORDER BY id")));
    assertThat(rows.get("columns").toString()).contains("note");
    assertThat(rows.get("rows").toString()).contains("app-open").doesNotContain("delivered");
  }

  @Test
  void finding07_aQuotedCatalogTypeIsNoExistenceOracle() {
    String hidden = asBob(postgres, "SELECT 'secrets'::\"regclass\"::oid");
    String missing = asBob(postgres, "SELECT 'no_such_table'::\"regclass\"::oid");
    assertThat(hidden).contains("\"isError\":true");
    assertThat(hidden.replace("secrets", "X")).isEqualTo(missing.replace("no_such_table", "X"));
  }

  /** Returns the bytes every live platform thread (virtual threads' carriers included) allocated. */
  static long allocatedBytes() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long total = 0;
    for (long a : threads.getThreadAllocatedBytes(threads.getAllThreadIds())) {
      total += Math.max(0, a);
    }
    return total;
  }

  @Test
  void finding09_aHugeValueIsNeverHeldWhole() throws Exception {
    // What the agent allocates while eight 200 MB values are read: held whole, each of them
    // would be at least 200 MB of bytes from the driver and as much again as a string.
    long before = allocatedBytes();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<CompletableFuture<String>> calls = new ArrayList<>();
    try {
      for (int i = 0; i < 8; i++) {
        calls.add(CompletableFuture.supplyAsync(() -> asBob(postgres,
            "SELECT REPEAT('x', 200000000) || '' AS big"), pool));
      }
      for (CompletableFuture<String> call : calls) {
        String answer = call.join();
        assertThat(answer).contains("\"truncated\":true").contains("199995904 more characters");
        assertThat(answer.length()).isLessThan(100_000);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(allocatedBytes() - before).as("bytes allocated").isLessThan(300L << 20);
  }

  @Test
  void finding10_workAtPrepareTimeIsBoundedByTheTimeout() {
    AgentClient analyst = h2.client(AgentServer.ANALYST).initialize();
    long started = System.nanoTime();
    String answer = analyst.callText("query",
        sqlArgs("SELECT HASH('SHA-256', 'x', 60000000)"));
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertThat(answer).contains("\"isError\":true").containsAnyOf("timeout", "timed out");
    // The statement timeout is 2 s; the hash alone takes several times that here.
    assertThat(millis).isLessThan(4_000);
    // It still runs to its end in H2, holding its connection, and then lets it go.
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(90))
        .until(() -> h2.agent.activeConnections() == 0);
  }

  @Test
  void finding13_aDeepStatementIsRefusedAsInvalidParams() {
    for (AgentServer server : List.of(h2, postgres)) {
      for (int depth : new int[] {2000, 4500}) {
        String sql = "SELECT " + "NOT ".repeat(depth) + "true";
        AgentClient client = server.client(server == h2 ? AgentServer.ANALYST
            : RedTeamDatabase.BOB).initialize();
        JsonNode response = client.request("tools/call",
            AgentClient.callParams("query", sqlArgs(sql)));
        assertThat(response.path("error").path("code").asInt())
            .as("%s, %d: %s", server, depth, response).isEqualTo(-32602);
        assertThat(response.toString()).contains("deep");
      }
    }
  }

  @Test
  void parsingIsAdmittedByThePerPrincipalLimit() throws Exception {
    // Bob runs his limit of statements; one more, however costly to parse, is refused before
    // the parser sees it (here it would not even parse). The sleeps must all be running at
    // once: long enough that eight requests started by a loaded machine, some waiting a moment
    // for a pool connection an earlier test's cancel replaced, still overlap (3 s did not, once,
    // on a busy CI run).
    ExecutorService pool = Executors.newFixedThreadPool(LIMITS.maxConcurrentQueries());
    try {
      List<CompletableFuture<String>> sleeps = new ArrayList<>();
      for (int i = 0; i < LIMITS.maxConcurrentQueries(); i++) {
        sleeps.add(CompletableFuture.supplyAsync(() -> asBob(postgres,
            "SELECT pg_sleep(" + SLEEP_SECONDS + ")"), pool));
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() ->
          sleepingStatements() == LIMITS.maxConcurrentQueries());
      String answer = asBob(postgres, "SELECT " + "((((((((((1))))))))))+".repeat(400)
          + " (((");
      assertThat(answer).contains("Too many statements running");
      sleeps.forEach(CompletableFuture::join);
    } finally {
      pool.shutdownNow();
    }
  }

  /** How long each of Bob's statements sleeps in the admission test. */
  static final int SLEEP_SECONDS = 10;

  static int sleepingStatements() throws Exception {
    try (Connection c = TestPostgres.get().superuser(DB); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = '"
            + DB + "' AND state = 'active' AND query LIKE '%pg_sleep(" + SLEEP_SECONDS + ")%' "
            + "AND pid <> pg_backend_pid()")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
