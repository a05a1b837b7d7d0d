package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import java.lang.reflect.Field;
import java.net.URLEncoder;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.sql.DataSource;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Done item 3 of issue 14: with the agent on a PostgreSQL role that may write everything and
 * without {@code --allow-writes}, no text sent through any tool, resource, prompt or
 * completion changes anything. A corpus of hostile texts (the hostile statements, the red
 * team's texts, every smuggling form after a {@code ;} and {@code COMMIT}, generated splices)
 * goes through {@code query} and {@code explain}, and hostile names, columns, filter values and
 * operators through every other tool and surface, in a legacy session and as stateless
 * 2026-07-28 requests, as bob (who may see little) and as alice (who may see everything).
 * Afterwards every table's rows, every sequence, the catalog (temporary objects, schemas,
 * relations, functions, types, roles, large objects, settings stored per role or database),
 * the locks and the agent's own sessions (as {@code pg_stat_activity} shows them, and each
 * pooled connection's settings, role, listens, prepared statements and cursors) are exactly as
 * before.
 */
class NoChangeThroughAnyToolTest {

  static final String DB = "keel_nochange";
  static final AgentLimits LIMITS = AgentLimits.defaults()
      .withStatementTimeout(Duration.ofSeconds(2)).withMaxConcurrentQueries(8).withMaxRows(20);

  static AgentServer server;

  @BeforeAll
  static void start() {
    String url = RedTeamDatabase.url(DB);
    // the analysis tools' extensions, so suggest_indexes really creates hypothetical indexes
    TestPostgres.get().analysisDatabase(DB);
    server = new AgentServer("postgresql", DatabaseAgent.builder().jdbcUrl(url)
        .user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD)
        .access(RedTeamDatabase.policy()).limits(LIMITS).build(), RedTeamDatabase.KEYS);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  // ------------------------------------------------------------------ the corpus

  /** Statements a smuggled one follows: each ends where some reader once thought it did. */
  static final List<String> PREFIXES = List.of("SELECT 4 //* x */ 2", "SELECT 1",
      "SELECT $a$ x $a$", "SELECT 1 /*/ x */", "SELECT E'\\''", "SELECT 'a'\n'b'");

  /** What comes between the statement and the smuggled one. */
  static final List<String> CONNECTORS = List.of("; ", "; COMMIT; ", ";\n-- x\n");

  /** Names, columns, values and operators for the tools that take no SQL. */
  static final List<String> HOSTILE_NAMES = hostileNames();

  static List<String> hostileNames() {
    List<String> names = new ArrayList<>(List.of("orders; DELETE FROM orders",
        "orders\"; DELETE FROM orders; --", "orders'; DELETE FROM orders; --", "secrets",
        "public.secrets", "app.orders", "\"orders\"", "ORDERS", "orders WHERE 1=1; COMMIT; "
            + "DELETE FROM orders", "pg_class", "ticket_seq", "../orders", "orders\u0000x",
        "orders -- ", "orders/*", "status); DELETE FROM orders; --", "status\" = 'x'; --",
        "status IS NULL; COMMIT; UPDATE orders SET status = 'x'; --",
        "= 1; DELETE FROM orders", "is null; COMMIT", "in (SELECT payload FROM secrets)", "",
        " ", "*", "ssn", "payload", "id; SELECT nextval('ticket_seq')",
        "x'); SELECT setval('ticket_seq', 99); --", "$$; DELETE FROM orders; $$",
        "\u00a0orders", "orders\u200b", "\uff4f\uff52\uff44\uff45\uff52\uff53",
        "{fn now()}", "%", "?"));
    for (String s : SqlTextGenerator.SMUGGLED) {
      names.add(s);
      names.add("orders; " + s);
    }
    return List.copyOf(names);
  }

  /** The SQL texts sent to {@code query} and {@code explain}. */
  static List<String> sqlTexts() {
    List<String> texts = new ArrayList<>();
    for (String c : HostileStatementsTest.CASES) {
      texts.add(c.substring(2));
    }
    texts.addAll(SqlTextGenerator.ATTACKS);
    for (String prefix : PREFIXES) {
      for (String connector : CONNECTORS) {
        for (String smuggled : SqlTextGenerator.SMUGGLED) {
          texts.add(prefix + connector + smuggled);
        }
      }
    }
    // every form spliced in at random, and a statement smuggled after a ';' in about a third
    SqlTextGenerator generator = new SqlTextGenerator(SqlTextGenerator.Engine.POSTGRESQL, 1.0);
    for (long i = 0; i < 300; i++) {
      texts.add(generator.text(14, i));
    }
    return texts;
  }

  // ------------------------------------------------------------------ sending

  /** One caller: a principal in one era. */
  record Caller(String name, boolean modern, AgentClient client) {}

  static final AtomicLong IDS = new AtomicLong(1000);
  static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();
  static final AtomicLong SENT = new AtomicLong();
  /** How the requests were answered, by era: so that a corpus nobody read cannot pass. */
  static final Map<String, AtomicLong> OUTCOMES = new java.util.concurrent.ConcurrentHashMap<>();

  static String json(String s) {
    return JsonNodeFactory.instance.stringNode(s).toString();
  }

  /**
   * Sends one request as {@code caller}: in the session, or stateless with the headers the
   * 2026-07-28 era wants (the name in Base64, so any text travels). The answer is not judged
   * here, only that bob's never holds a secret; what counts is the database afterwards.
   */
  static void send(Caller caller, String method, String nameField, String params) {
    long id = IDS.incrementAndGet();
    HttpResponse<String> r;
    if (!caller.modern()) {
      r = caller.client().post(caller.client().session, AgentClient.body(id, method, params),
          null);
    } else {
      String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\""
          + AgentClient.MODERN + "\",\"io.modelcontextprotocol/clientCapabilities\":{}}";
      String p = params.equals("{}") ? "{" + meta + "}"
          : params.substring(0, params.lastIndexOf('}')) + "," + meta + "}";
      List<String> headers = new ArrayList<>(List.of("MCP-Protocol-Version", AgentClient.MODERN,
          "Mcp-Method", method));
      if (nameField != null) {
        headers.addAll(List.of("Mcp-Name", "=?base64?" + Base64.getEncoder().encodeToString(
            nameField.getBytes(StandardCharsets.UTF_8)) + "?="));
      }
      r = caller.client().post(null, AgentClient.body(id, method, p), headers);
    }
    SENT.incrementAndGet();
    String body = r.body();
    String outcome = r.statusCode() != 200 ? "HTTP " + r.statusCode()
        : body.contains("\"isError\":true") ? "tool error"
        : body.contains("\"result\"") ? "result" : "JSON-RPC error";
    OUTCOMES.computeIfAbsent((caller.modern() ? "stateless " : "session ") + outcome,
        k -> new AtomicLong()).incrementAndGet();
    if (caller.name().equals("bob") && !params.contains(RedTeamDatabase.SECRET_PAYLOAD)
        && (r.body().contains(RedTeamDatabase.SECRET_PAYLOAD)
            || r.body().contains(RedTeamDatabase.SSN))) {
      LEAKS.add(method + " " + params);
    }
  }

  static void call(Caller caller, String tool, String arguments) {
    send(caller, "tools/call", tool, AgentClient.callParams(tool, arguments));
  }

  /** Every request of the corpus, each a task for one caller chosen by its number. */
  static List<Function<Caller, Runnable>> requests() {
    List<Function<Caller, Runnable>> all = new ArrayList<>();
    for (String sql : sqlTexts()) {
      String args = "{\"sql\":" + json(sql) + "}";
      all.add(c -> () -> call(c, "query", args));
      all.add(c -> () -> call(c, "query", args));
      all.add(c -> () -> call(c, "explain", args));
      // --- the analysis tools (AnalysisTools) ---
      all.add(c -> () -> call(c, "suggest_indexes", args));
    }
    all.add(c -> () -> call(c, "suggest_indexes", "{\"sql\":\"SELECT id FROM customers WHERE "
        + "name = ? ORDER BY country\",\"params\":[\"x\"]}"));
    all.add(c -> () -> call(c, "health", "{\"longTransactionSeconds\":0}"));
    all.add(c -> () -> call(c, "slow_statements", "{\"limit\":50}"));
    for (String h : List.of("'; DELETE FROM orders; --", "1; COMMIT; DELETE FROM orders",
        RedTeamDatabase.SECRET_PAYLOAD.substring(0, 3))) {
      all.add(c -> () -> call(c, "query", "{\"sql\":\"SELECT ? AS x, status FROM orders WHERE "
          + "status = ? LIMIT 1\",\"params\":[" + json(h) + "," + json(h) + "]}"));
      all.add(c -> () -> call(c, "explain", "{\"sql\":\"SELECT * FROM orders WHERE status = ?"
          + "\",\"params\":[" + json(h) + "]}"));
    }
    for (String maxRows : List.of("-1", "0", "1000000000", "\"5; DELETE FROM orders\"")) {
      all.add(c -> () -> call(c, "query", "{\"sql\":\"SELECT * FROM orders\",\"maxRows\":"
          + maxRows + "}"));
    }
    for (String h : HOSTILE_NAMES) {
      String n = json(h);
      all.add(c -> () -> call(c, "list_tables", "{}"));
      all.add(c -> () -> call(c, "list_tables", "{\"table\":" + n + "}"));
      all.add(c -> () -> call(c, "describe_table", "{\"table\":" + n + "}"));
      all.add(c -> () -> call(c, "sample_rows", "{\"table\":" + n + "}"));
      all.add(c -> () -> call(c, "sample_rows", "{\"table\":\"orders\",\"columns\":[" + n
          + "]}"));
      all.add(c -> () -> call(c, "sample_rows", "{\"table\":\"orders\",\"limit\":" + n + "}"));
      for (String table : List.of("orders", "customers")) {
        String column = table.equals("orders") ? "status" : "name";
        all.add(c -> () -> call(c, "sample_rows", "{\"table\":\"" + table + "\",\"filters\":[{"
            + "\"column\":" + n + ",\"op\":\"=\",\"value\":1}]}"));
        all.add(c -> () -> call(c, "count_rows", "{\"table\":\"" + table + "\",\"filters\":[{"
            + "\"column\":\"" + column + "\",\"op\":" + n + ",\"value\":\"x\"}]}"));
        all.add(c -> () -> call(c, "count_rows", "{\"table\":\"" + table + "\",\"filters\":[{"
            + "\"column\":\"" + column + "\",\"op\":\"=\",\"value\":" + n + "}]}"));
        all.add(c -> () -> call(c, "sample_rows", "{\"table\":\"" + table + "\",\"filters\":[{"
            + "\"column\":\"" + column + "\",\"op\":\"in\",\"value\":[" + n + "," + n + "]}]}"));
        all.add(c -> () -> call(c, "top_values", "{\"table\":\"" + table + "\",\"column\":"
            + n + "}"));
        all.add(c -> () -> call(c, "top_values", "{\"table\":\"" + table + "\",\"column\":\""
            + column + "\",\"filters\":[{\"column\":\"" + column + "\",\"op\":\"like\","
            + "\"value\":" + n + "}],\"limit\":" + n + "}"));
      }
      all.add(c -> () -> call(c, "count_rows", "{\"table\":" + n + "}"));
      all.add(c -> () -> call(c, "top_values", "{\"table\":" + n + ",\"column\":\"status\"}"));
      for (String template : List.of("schema", "count", "sample")) {
        String raw = "db://tables/" + h + "/" + template;
        String encoded = "db://tables/" + URLEncoder.encode(h, StandardCharsets.UTF_8) + "/"
            + template;
        for (String uri : List.of(raw, encoded)) {
          all.add(c -> () -> send(c, "resources/read", uri, "{\"uri\":" + json(uri) + "}"));
        }
      }
      all.add(c -> () -> send(c, "resources/read", "db://tables", "{\"uri\":\"db://tables\"}"));
      all.add(c -> () -> send(c, "prompts/get", "explore_table", "{\"name\":\"explore_table\","
          + "\"arguments\":{\"table\":" + n + "}}"));
      all.add(c -> () -> send(c, "prompts/get", "count_by_column", "{\"name\":"
          + "\"count_by_column\",\"arguments\":{\"table\":\"orders\",\"column\":" + n + "}}"));
      all.add(c -> () -> send(c, "prompts/get", "count_by_column", "{\"name\":"
          + "\"count_by_column\",\"arguments\":{\"table\":" + n + ",\"column\":\"status\"}}"));
      all.add(c -> () -> send(c, "prompts/get", "explore_database", "{\"name\":"
          + "\"explore_database\",\"arguments\":{\"table\":" + n + "}}"));
      all.add(c -> () -> send(c, "completion/complete", null, "{\"ref\":{\"type\":"
          + "\"ref/prompt\",\"name\":\"explore_table\"},\"argument\":{\"name\":\"table\","
          + "\"value\":" + n + "}}"));
      all.add(c -> () -> send(c, "completion/complete", null, "{\"ref\":{\"type\":"
          + "\"ref/prompt\",\"name\":\"count_by_column\"},\"argument\":{\"name\":\"column\","
          + "\"value\":" + n + "},\"context\":{\"arguments\":{\"table\":" + n + "}}}"));
      for (String template : List.of("schema", "count", "sample")) {
        all.add(c -> () -> send(c, "completion/complete", null, "{\"ref\":{\"type\":"
            + "\"ref/resource\",\"uri\":\"db://tables/{table}/" + template + "\"},"
            + "\"argument\":{\"name\":\"table\",\"value\":" + n + "}}"));
      }
    }
    return all;
  }

  // ------------------------------------------------------------------ the test

  @Test
  void noTextThroughAnyToolChangesAnything() throws Exception {
    // Every pooled connection is opened and used once first: the baseline is the state the
    // agent keeps its connections in between statements, not that of a connection never used
    // (the agent's own reset may settle a pin on first use).
    readOrdersOnEveryConnection(null);
    Map<String, String> before = RedTeamDatabase.state(DB);
    Map<String, String> catalogBefore = catalog();
    Set<String> namesBefore = applicationNames();
    Set<String> sessionsBefore = pooledSessions();
    List<Caller> callers = List.of(
        new Caller("bob", false, server.client(RedTeamDatabase.BOB).initialize()),
        new Caller("alice", true, server.client(RedTeamDatabase.ALICE)),
        new Caller("alice", false, server.client(RedTeamDatabase.ALICE).initialize()),
        new Caller("bob", true, server.client(RedTeamDatabase.BOB)));
    List<Function<Caller, Runnable>> requests = requests();
    long started = System.nanoTime();
    // Four at once: several pooled connections see the corpus, as they would in real use.
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int i = 0; i < requests.size(); i++) {
        // successive requests of one text go to different callers, so each text meets each
        // tool in both eras and as both principals across its repetitions
        done.add(pool.submit(requests.get(i).apply(callers.get(i % callers.size()))));
      }
      for (Future<?> f : done) {
        f.get(5, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    System.out.println("NoChangeThroughAnyToolTest: " + SENT.get() + " requests in "
        + (System.nanoTime() - started) / 1_000_000 + " ms: " + new TreeMap<>(OUTCOMES));
    for (String era : List.of("session", "stateless")) {
      for (String outcome : List.of("result", "tool error")) {
        assertThat(OUTCOMES.getOrDefault(era + " " + outcome, new AtomicLong()).get())
            .as("%s requests answered with a %s", era, outcome).isGreaterThan(200);
      }
    }

    SoftAssertions soft = new SoftAssertions();
    soft.assertThat(LEAKS).as("answers to bob that held a secret").isEmpty();
    soft.assertThat(RedTeamDatabase.state(DB)).as("rows, sequences, temporary objects, schemas")
        .isEqualTo(before);
    soft.assertThat(catalog()).as("catalog, locks and the agent's sessions")
        .isEqualTo(catalogBefore);
    // A subset, not equal: a connection the agent has not yet reset may still carry the
    // driver's own name (see the warm-up above); a SET would add a name.
    soft.assertThat(namesBefore).as("the application names of the agent's sessions")
        .containsAll(applicationNames());
    Set<String> sessionsAfter = pooledSessions();
    soft.assertThat(sessionsBefore).as("every pooled connection's session state").containsAll(
        sessionsAfter);
    for (String s : sessionsAfter) {
      soft.assertThat(s).as("a pooled connection's session").contains(
          "default_transaction_read_only=on").contains("search_path=\"public\"");
    }
    readOrdersOnEveryConnection(soft);
    soft.assertAll();
  }

  /**
   * Reads {@code orders} as alice on every pooled connection (as many at once as the pool
   * holds, each waiting a little so that each takes a connection of its own); with {@code
   * soft}, checks that each read the real table, not a temporary or another schema's one.
   */
  static void readOrdersOnEveryConnection(SoftAssertions soft) throws Exception {
    int n = LIMITS.poolSize();
    ExecutorService readers = Executors.newFixedThreadPool(n);
    try {
      List<Future<String>> answers = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        AgentClient alice = server.client(RedTeamDatabase.ALICE).initialize();
        answers.add(readers.submit(() -> alice.callText("query", "{\"sql\":\"SELECT "
            + "pg_sleep(0.3) AS p, (SELECT count(*) FROM orders) AS n, (SELECT string_agg("
            + "DISTINCT status, ',') FROM orders) AS s\"}")));
      }
      for (Future<String> a : answers) {
        String answer = a.get(1, TimeUnit.MINUTES);
        if (soft != null) {
          soft.assertThat(answer).as("orders as alice reads them").contains("2500")
              .contains("delivered").doesNotContain("spoofed").doesNotContain("app-open");
        }
      }
    } finally {
      readers.shutdownNow();
    }
  }

  // ------------------------------------------------------------------ what is compared

  /**
   * What {@link RedTeamDatabase#state} leaves out that a statement could still change: types,
   * roles, databases, large objects, settings stored for a role or database, comments,
   * extensions, prepared transactions, advisory and other locks, and the agent's own sessions
   * as the server lists them (their number bounded by the pool, none holding a transaction id).
   */
  static Map<String, String> catalog() throws SQLException {
    Map<String, String> state = new TreeMap<>();
    try (Connection c = TestPostgres.get().superuser(DB); Statement s = c.createStatement()) {
      for (String[] q : new String[][] {
          {"types", "SELECT count(*) FROM pg_type t JOIN pg_namespace n ON n.oid = "
              + "t.typnamespace WHERE n.nspname IN ('public', 'app')"},
          {"roles", "SELECT string_agg(rolname || ':' || rolsuper || rolcreaterole || "
              + "rolcanlogin, ',' ORDER BY rolname) FROM pg_roles"},
          {"databases", "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database"},
          {"large objects", "SELECT count(*) FROM pg_largeobject_metadata"},
          {"stored settings", "SELECT count(*) FROM pg_db_role_setting"},
          {"comments", "SELECT count(*) || '/' || coalesce(md5(string_agg(description, '|' "
              + "ORDER BY objoid, classoid, objsubid)), '') FROM pg_description"},
          {"extensions", "SELECT string_agg(extname, ',' ORDER BY extname) FROM pg_extension"},
          {"prepared transactions", "SELECT count(*) FROM pg_prepared_xacts"},
          // by client backends only: autovacuum takes ShareUpdateExclusive locks on its own
          // clock (CI saw one on a table another test had just filled)
          {"locks held by others", "SELECT count(*) FROM pg_locks l WHERE l.pid <> "
              + "pg_backend_pid() AND l.pid IN (SELECT pid FROM pg_stat_activity WHERE "
              + "backend_type = 'client backend') AND (l.locktype = 'advisory' OR l.granted "
              + "AND l.mode LIKE '%Exclusive%' AND l.locktype <> 'virtualxid' AND l.locktype "
              + "<> 'transactionid')"},
          // the number of sessions changes as the pool grows, but never past it, and none may
          // hold a transaction id (a write)
          {"agent sessions", "SELECT count(*) <= " + LIMITS.poolSize() + " AS bounded, "
              + "count(backend_xid) AS xids FROM pg_stat_activity WHERE datname = '" + DB
              + "' AND usename = '" + TestPostgres.AGENT_USER + "'"}}) {
        try (ResultSet rs = s.executeQuery(q[1])) {
          rs.next();
          StringBuilder v = new StringBuilder();
          for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
            v.append(i > 1 ? " " : "").append(rs.getString(i));
          }
          state.put(q[0], v.toString());
        }
      }
    }
    return state;
  }

  /** The application names of the agent's sessions, as the server lists them. */
  static Set<String> applicationNames() throws SQLException {
    Set<String> names = new TreeSet<>();
    try (Connection c = TestPostgres.get().superuser(DB); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT DISTINCT application_name FROM pg_stat_activity "
            + "WHERE datname = '" + DB + "' AND usename = '" + TestPostgres.AGENT_USER + "'")) {
      while (rs.next()) {
        names.add(rs.getString(1));
      }
    }
    return names;
  }

  /**
   * The session state of every idle connection in the agent's read pool, each as one line:
   * every setting not at its server default (start-up options and SETs alike), the role, and
   * what a session can keep (listens, prepared statements, cursors, temporary tables). The
   * connections are taken from the pool itself, exactly as the next statement would get them,
   * and given back untouched.
   */
  static Set<String> pooledSessions() throws Exception {
    HikariDataSource reads = readPool(server.agent);
    Set<String> sessions = new TreeSet<>();
    int idle = reads.getHikariPoolMXBean().getIdleConnections();
    List<Connection> taken = new ArrayList<>();
    try {
      for (int i = 0; i < idle; i++) {
        taken.add(reads.getConnection());
      }
      for (Connection c : taken) {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT "
            + "(SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) FROM pg_settings "
            + "WHERE source IN ('client', 'session', 'database', 'user', 'database user') "
            + "AND name NOT LIKE 'transaction_%'), current_user, session_user, "
            + "(SELECT count(*) FROM pg_listening_channels()), "
            + "(SELECT count(*) FROM pg_prepared_statements), (SELECT count(*) FROM pg_cursors), "
            + "(SELECT count(*) FROM pg_class WHERE relnamespace = pg_my_temp_schema())")) {
          rs.next();
          sessions.add(rs.getString(1) + " | user " + rs.getString(2) + "/" + rs.getString(3)
              + " | listens " + rs.getLong(4) + " | prepared " + rs.getLong(5) + " | cursors "
              + rs.getLong(6) + " | temporary " + rs.getLong(7));
        }
        c.rollback();
      }
    } finally {
      for (Connection c : taken) {
        c.close();
      }
    }
    assertThat(sessions).as("pooled sessions").isNotEmpty();
    return sessions;
  }

  /** The agent's read pool, found by type: the test watches it, it does not replace it. */
  static HikariDataSource readPool(DatabaseAgent agent) throws Exception {
    for (Field f : DatabaseAgent.class.getDeclaredFields()) {
      if (f.getType().getName().equals("dev.keel.agent.internal.Sources")) {
        f.setAccessible(true);
        Object sources = f.get(agent);
        Object first = ((java.util.List<?>) sources.getClass().getMethod("all").invoke(sources))
            .get(0);
        Object db = first.getClass().getMethod("db").invoke(first);
        DataSource reads = (DataSource) db.getClass().getMethod("reads").invoke(db);
        return (HikariDataSource) reads;
      }
    }
    throw new AssertionError("DatabaseAgent holds no Sources");
  }
}
