package dev.keel.bench.driver;

import dev.keel.agent.DatabaseAgent;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/**
 * The database agent's own cost: {@code query} of a one-row {@code SELECT} and of a 500-row
 * result, through the agent's engine in this JVM (decode, the statement check and rewrite, the
 * bounded read, the result as JSON, encode), beside the same statement through plain JDBC on
 * one open connection in the same JVM, reading every column of every row. The difference is
 * what the agent adds; HTTP is left out on purpose, since the server benchmark measures it.
 *
 * <pre>
 * AgentBench --engine h2|postgresql [--jdbc URL --user U --password P]
 *            [--duration S] [--warmup S] [--out FILE] [--rep N]
 * </pre>
 *
 * <p>For H2 the database is in memory in this JVM. For PostgreSQL {@code --jdbc} names a
 * database the user may create a table in; the agent then reads it as that user. Each line
 * printed is one JSON object in the shape {@code Driver} writes: {@code server} is
 * {@code agent-<engine>} or {@code jdbc-<engine>}, {@code scenario} {@code query1} or
 * {@code query500}.
 */
public final class AgentBench {

  /** The rows the large result returns, the agent's default row limit. */
  static final int ROWS = 500;
  private static final String COLUMNS = "SELECT id, name, amount, created FROM bench_rows";
  private static final String ONE = COLUMNS + " WHERE id = 42";
  private static final String ALL = COLUMNS + " ORDER BY id";
  private static final MessageStream NOWHERE = message -> true;

  private AgentBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = ResultLines.options(args);
    for (Map<String, Object> r : run(o)) {
      ResultLines.emit(o, r);
    }
  }

  /** Runs both sizes on one engine; see the class comment for the options. */
  public static List<Map<String, Object>> run(Map<String, String> o) throws Exception {
    String engine = o.getOrDefault("engine", "h2");
    String url = o.getOrDefault("jdbc", "jdbc:h2:mem:keelbench;DB_CLOSE_DELAY=-1");
    String user = o.getOrDefault("user", "sa");
    String password = o.getOrDefault("password", "");
    double duration = Double.parseDouble(o.getOrDefault("duration", "10"));
    double warmup = Double.parseDouble(o.getOrDefault("warmup", "5"));
    int rep = Integer.parseInt(o.getOrDefault("rep", "1"));
    List<Map<String, Object>> results = new ArrayList<>();
    try (Connection plain = DriverManager.getConnection(url, user, password)) {
      fill(plain);
      try (DatabaseAgent agent = DatabaseAgent.builder().jdbcUrl(url).user(user)
          .password(password).build()) {
        ServerEngine server = agent.server().engine();
        for (Map.Entry<String, String> size : Map.of("query1", ONE, "query" + ROWS, ALL)
            .entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
          String sql = size.getValue();
          int expected = sql.equals(ONE) ? 1 : ROWS;
          byte[] call = call(sql);
          Op viaAgent = () -> agentCall(server, call, expected);
          Op viaJdbc = () -> jdbc(plain, sql, expected);
          // in turn, so that neither side has the warmer caches throughout
          measure(viaAgent, warmup);
          measure(viaJdbc, warmup);
          results.add(result("agent-" + engine, size.getKey(), rep,
              measure(viaAgent, duration), duration));
          results.add(result("jdbc-" + engine, size.getKey(), rep,
              measure(viaJdbc, duration), duration));
        }
      }
    }
    return results;
  }

  /** One measured operation. */
  @FunctionalInterface
  interface Op {
    void run() throws Exception;
  }

  private static Latencies measure(Op op, double seconds) throws Exception {
    Latencies latencies = new Latencies();
    long end = System.nanoTime() + (long) (seconds * 1e9);
    while (System.nanoTime() < end) {
      long start = System.nanoTime();
      op.run();
      latencies.add(System.nanoTime() - start);
    }
    return latencies;
  }

  private static Map<String, Object> result(String server, String scenario, int rep,
      Latencies l, double seconds) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("server", server);
    r.put("scenario", scenario);
    r.put("rep", rep);
    r.put("perSecond", Math.round(l.count() / seconds * 100) / 100.0);
    r.put("p50Ms", Math.round(l.millisAt(0.50) * 1000) / 1000.0);
    r.put("p99Ms", Math.round(l.millisAt(0.99) * 1000) / 1000.0);
    r.put("ok", l.count());
    r.put("errors", 0);
    return r;
  }

  /** A stateless tools/call of {@code query}, as a client's bytes. */
  private static byte[] call(String sql) {
    return ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
        + "\"query\",\"arguments\":{\"sql\":\"" + sql + "\"},\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** Through the agent's engine, from the request's bytes to the answer's; checks the rows. */
  private static void agentCall(ServerEngine server, byte[] call, int expected) {
    JsonRpcMessage answer = server.handle(null, Principal.local(), server.codec().decode(call),
        NOWHERE).orElseThrow(() -> new IllegalStateException("the agent did not answer"));
    byte[] bytes = server.codec().encode(answer);
    if (!(answer instanceof JsonRpcResponse response)
        || response.result().path("isError").asBoolean(false)) {
      throw new IllegalStateException("the agent refused the query: "
          + new String(bytes, StandardCharsets.UTF_8));
    }
    JsonNode rows = response.result().path("structuredContent").path("rows");
    if (rows.size() != expected) {
      throw new IllegalStateException("the agent returned " + rows.size() + " rows, not "
          + expected + ": " + new String(bytes, 0, Math.min(bytes.length, 400),
          StandardCharsets.UTF_8));
    }
  }

  /** The same statement through plain JDBC, every column of every row read. */
  private static void jdbc(Connection c, String sql, int expected) throws SQLException {
    int rows = 0;
    try (PreparedStatement s = c.prepareStatement(sql); ResultSet r = s.executeQuery()) {
      int columns = r.getMetaData().getColumnCount();
      while (r.next()) {
        for (int i = 1; i <= columns; i++) {
          if (r.getObject(i) == null) {
            throw new IllegalStateException("a null in bench_rows");
          }
        }
        rows++;
      }
    }
    if (rows != expected) {
      throw new IllegalStateException("JDBC returned " + rows + " rows, not " + expected);
    }
  }

  /** Creates {@code bench_rows} with {@link #ROWS} rows, replacing an earlier one. */
  private static void fill(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("DROP TABLE IF EXISTS bench_rows");
      s.execute("CREATE TABLE bench_rows (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, "
          + "amount NUMERIC(10,2) NOT NULL, created DATE NOT NULL)");
    }
    try (PreparedStatement insert = c.prepareStatement(
        "INSERT INTO bench_rows (id, name, amount, created) VALUES (?, ?, ?, ?)")) {
      for (int i = 1; i <= ROWS; i++) {
        insert.setInt(1, i);
        insert.setString(2, "customer number " + i);
        insert.setBigDecimal(3, java.math.BigDecimal.valueOf(i * 137L % 100_000, 2));
        insert.setDate(4, java.sql.Date.valueOf(java.time.LocalDate.of(2026, 1, 1)
            .plusDays(i % 365)));
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }
}
