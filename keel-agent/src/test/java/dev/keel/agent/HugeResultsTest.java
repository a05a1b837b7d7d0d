package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Hostile statements against the agent in a JVM of its own with a 128 MiB heap that exits at
 * the first {@link OutOfMemoryError} ({@link BoundedAgentProcess}), serving PostgreSQL, the
 * embedded H2, and MariaDB through both of its drivers: huge values, huge results and plans
 * that explode, sent by one principal. Each must be refused or cut with a clear answer, and
 * afterwards (for the slow ones, meanwhile) the process is alive and another principal gets
 * exactly the answers it got before.
 */
class HugeResultsTest {

  static final AgentLimits LIMITS = AgentLimits.defaults()
      .withStatementTimeout(Duration.ofSeconds(4));
  static final Duration H2_TIMEOUT = Duration.ofSeconds(15);
  static final List<String> SOURCES = List.of("pg", "h2", "maria", "mysql");
  static final String HONEST = "SELECT count(*) AS n, max(name) AS last FROM customers";

  static BoundedAgentProcess agent;
  static AgentClient hostile;
  static AgentClient other;
  static final Map<String, String> baseline = new LinkedHashMap<>();
  static final List<String> measured = new ArrayList<>();
  static final ExecutorService calls = Executors.newCachedThreadPool();
  static final long[] maxPeak = new long[2];
  static long startMillis;

  @BeforeAll
  static void start() throws Exception {
    String pg = TestPostgres.get().database("keel_huge");
    TestMariaDb maria = TestMariaDb.get();
    long started = System.nanoTime();
    agent = BoundedAgentProcess.start("128m", LIMITS, Map.of(
        "h2", List.of("sample"),
        "pg", List.of(pg, TestPostgres.AGENT_USER, TestPostgres.AGENT_PASSWORD),
        "maria", List.of(maria.database("keel_huge", TestMariaDb.Driver.MARIADB),
            TestMariaDb.AGENT_USER, TestMariaDb.AGENT_PASSWORD),
        "mysql", List.of(maria.database("keel_huge", TestMariaDb.Driver.MYSQL),
            TestMariaDb.AGENT_USER, TestMariaDb.AGENT_PASSWORD)),
        // on H2 only the memory guard is to stop what fills the heap, not the timeout
        Map.of("h2", H2_TIMEOUT));
    hostile = agent.client(BoundedAgentProcess.HOSTILE).initialize();
    other = agent.client(BoundedAgentProcess.OTHER).initialize();
    // the first call of a source loads its catalog; the answers are what "served" means
    List<CompletableFuture<Void>> warm = new ArrayList<>();
    for (String source : SOURCES) {
      warm.add(CompletableFuture.runAsync(() -> {
        String answer = rows(other.call("query", args(source, HONEST)));
        synchronized (baseline) {
          baseline.put(source, answer);
        }
      }, calls));
    }
    warm.forEach(CompletableFuture::join);
    agent.peakHeapBytes();
    startMillis = (System.nanoTime() - started) / 1_000_000;
  }

  @AfterAll
  static void stop() {
    calls.shutdownNow();
    if (agent != null) {
      System.out.println("HugeResultsTest, agent at -Xmx128m: started and warmed in "
          + startMillis + " ms; peak heap in use " + (maxPeak[0] >> 20) + " MiB, long-lived "
          + (maxPeak[1] >> 20) + " MiB; per call (millis, peak heap in use and long-lived since "
          + "the previous call, MiB; calls overlap):\n  " + String.join("\n  ", measured));
      agent.close();
    }
  }

  /** After every test: alive, no allocation failed, and the other principal is served. */
  @AfterEach
  void theAgentStillServesEveryone() {
    assertThat(agent.isAlive()).as("the agent is alive (%s)", agent.state()).isTrue();
    assertThat(agent.state()).doesNotContain("OutOfMemoryError");
    assertOthersServed(Duration.ofSeconds(3));
  }

  @Test
  void hugeValuesAreCutOrRefused() {
    hugeValuesOnPostgres();
    hugeValuesOnH2();
    hugeValuesOnMySql("maria");
    hugeValuesOnMySql("mysql");
  }

  private void hugeValuesOnPostgres() {
    // every value is cut on the server (ValueCaps)
    JsonNode cut = structured(timed("pg: a 30 MB value",
        () -> hostile.call("query", args("pg", "SELECT repeat('x', 30000000) AS v"))));
    assertThat(cut.get("truncated").asBoolean()).isTrue();
    assertThat(cut.get("rows").get(0).get(0).asString())
        .endsWith("[cut: 29995904 more characters]");

    // an error quoting the value: cut by PgMessageCap, and the connection stays usable
    String quoted = error(timed("pg: an error quoting a 20 MB value", () -> hostile.call(
        "query", args("pg", "SELECT CAST(repeat('x', 20000000) AS int) AS v"))));
    assertThat(quoted).startsWith("The database refused the query: invalid input syntax for "
        + "type integer").hasSizeLessThan(1_000);

    // rows over pgjdbc's maxResultBuffer: a plan quoting a folded 10 MB constant, and one row
    // of 400 values of 8 KB each (each within the value cap)
    String plan = error(timed("pg: a plan quoting a 10 MB constant", () -> hostile.call(
        "explain", args("pg", "SELECT * FROM products WHERE name = repeat('x', 10000000)"))));
    assertThat(plan).startsWith("Refused while reading the answer");
    String wide = "SELECT " + IntStream.rangeClosed(1, 400)
        .mapToObj(i -> "repeat('\u00e9', 4096) AS c" + i).collect(Collectors.joining(", "));
    assertThat(error(timed("pg: one row of 400 x 8 KB",
        () -> hostile.call("query", args("pg", wide))))).startsWith("Refused while reading");
  }

  private void hugeValuesOnH2() {
    // H2 computes values in this JVM: sizes given as arguments are refused before it does
    assertThat(error(timed("h2: REPEAT of 100 M", () -> hostile.call("query",
        args("h2", "SELECT REPEAT('x', 100000000) AS v"))))).contains("REPEAT would build");
    assertThat(error(hostile.call("query", args("h2",
        "SELECT LPAD(name, 5 * 100000000) FROM products")))).contains("LPAD needs its length");
  }

  /**
   * MySQL and MariaDB: the server drops a value over its max_allowed_packet, and the result
   * says so; a row over the driver's maxAllowedPacket is refused; rows under it are read one at
   * a time (70 of them: more than a fetch would have held).
   */
  private void hugeValuesOnMySql(String source) {
    JsonNode dropped = structured(timed(source + ": REPEAT of 100 M", () -> hostile.call(
        "query", args(source, "SELECT REPEAT('x', 100000000) AS v"))));
    assertThat(dropped.get("rows").get(0).get(0).isNull()).isTrue();
    assertThat(dropped.get("truncation").asString()).contains("max_allowed_packet");
    assertThat(error(timed(source + ": rows of 10 MB", () -> hostile.call("query",
        args(source, "SELECT REPEAT('x', 10000000) AS v FROM orders")))))
        .startsWith("Refused while reading the answer: the database sent a row larger");
    JsonNode big = structured(timed(source + ": 70 rows of 1.5 MB", () -> hostile.call(
        "query", args(source, "SELECT id, REPEAT('x', 1500000) AS v FROM orders "
            + "WHERE id <= 70"))));
    assertThat(big.get("truncated").asBoolean()).isTrue();
    assertThat(big.get("rows").get(0).get(1).asString())
        .endsWith("[cut: 1495904 more characters]");
  }

  @Test
  void hugeResultsAreCutWithoutBeingReadWhole() {
    for (String source : SOURCES) {
      JsonNode rows = structured(timed(source + ": 15.6 billion rows", () -> hostile.call(
          "query", args(source, "SELECT a.id FROM orders a, orders b, orders c"))));
      assertThat(rows.get("rowCount").asInt()).isEqualTo(LIMITS.maxRows());
      assertThat(rows.get("truncation").asString()).contains("row limit");
      JsonNode bytes = structured(timed(source + ": 6 million rows of 4 KB", () -> hostile.call(
          "query", args(source, "SELECT a.id, " + (source.equals("h2") ? "REPEAT" : "repeat")
              + "('x', 4000) AS v FROM orders a, orders b"))));
      assertThat(bytes.get("truncation").asString()).contains("size limit");
    }
  }

  @Test
  void explodingPlansEndInTheTimeoutOrACutWhileOthersAreServed() {
    Map<String, CompletableFuture<JsonNode>> running = new LinkedHashMap<>();
    String endless = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) ";
    // stopped by the server's statement_timeout (PostgreSQL) and by KILL QUERY (MariaDB); the
    // recursion first, so the check parses it before the others take the CPU (its parser has
    // 2 s, which two starved cores have been seen to exceed)
    running.put("pg: count of an endless recursion", async("pg", endless
        + "SELECT count(*) FROM t"));
    sleep(Duration.ofMillis(500));
    for (String source : List.of("pg", "maria")) {
      running.put(source + ": count of a 3-way cross join", async(source,
          "SELECT count(*) FROM orders a, orders b, orders c"));
    }
    // meanwhile, another principal on every source, answered while the hostile ones still run
    assertOthersServed(Duration.ofSeconds(3));
    assertThat(running.values()).as("hostile statements still running")
        .anyMatch(call -> !call.isDone());
    running.forEach((what, call) -> assertThat(error(call.join())).as(what)
        // the runner's answer, or on a loaded machine the tool's own timeout a second later
        .containsAnyOf("it ran longer than the statement timeout", "timed out after"));

    // the embedded H2 keeps what it recurses over and sorts in this heap: both stopped by the
    // memory guard (the heavier first) long before their timeout, while another principal's
    // H2 call is not
    List<CompletableFuture<JsonNode>> h2 = List.of(async("h2", endless + "SELECT n FROM t"),
        async("h2", "SELECT a.total FROM orders a, orders b, orders c ORDER BY a.total + b.total"));
    assertOthersServed(Duration.ofSeconds(3));
    long started = System.nanoTime();
    for (CompletableFuture<JsonNode> call : h2) {
      assertThat(error(call.join())).startsWith("Stopped before the agent's memory ran out");
    }
    assertThat((System.nanoTime() - started) / 1_000_000).isLessThan(H2_TIMEOUT.toMillis());
    awaitHeapReleased();

    // an endless recursion that is only read is cut where the engine streams it
    for (String source : List.of("pg", "maria")) {
      JsonNode cut = structured(timed(source + ": rows of an endless recursion",
          () -> hostile.call("query", args(source, endless + "SELECT n FROM t"))));
      assertThat(cut.get("rowCount").asInt()).isEqualTo(LIMITS.maxRows());
    }
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Waits until H2 let go of what a stopped statement held, so the next one starts clean. */
  private static void awaitHeapReleased() {
    long deadline = System.nanoTime() + 10_000_000_000L;
    try {
      while (agent.collect()[1] > (48L << 20) && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static CompletableFuture<JsonNode> async(String source, String sql) {
    String what = source + ": " + sql;
    return CompletableFuture.supplyAsync(() -> timed(what,
        () -> hostile.call("query", args(source, sql))), calls);
  }

  /** Every source answers the other principal as before, each within {@code within}. */
  private static void assertOthersServed(Duration within) {
    List<CompletableFuture<Void>> served = new ArrayList<>();
    for (String source : SOURCES) {
      served.add(CompletableFuture.runAsync(() -> {
        long started = System.nanoTime();
        String answer = rows(other.call("query", args(source, HONEST)));
        long millis = (System.nanoTime() - started) / 1_000_000;
        assertThat(answer).as("%s for the other principal", source)
            .isEqualTo(baseline.get(source));
        assertThat(millis).as("%s answered the other principal in ms", source)
            .isLessThan(within.toMillis());
      }, calls));
    }
    try {
      CompletableFuture.allOf(served.toArray(CompletableFuture[]::new)).join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof AssertionError a) {
        throw a;
      }
      throw e;
    }
  }

  private static JsonNode timed(String what, java.util.function.Supplier<JsonNode> call) {
    long started = System.nanoTime();
    JsonNode result = call.get();
    long millis = (System.nanoTime() - started) / 1_000_000;
    String heap;
    try {
      long[] peak = agent.peakHeapBytes();
      synchronized (maxPeak) {
        maxPeak[0] = Math.max(maxPeak[0], peak[0]);
        maxPeak[1] = Math.max(maxPeak[1], peak[1]);
      }
      heap = (peak[0] >> 20) + ", " + (peak[1] >> 20);
    } catch (Exception e) {
      heap = "the agent is gone (" + e.getMessage() + ")";
    }
    synchronized (measured) {
      measured.add(what + ": " + millis + " ms, " + heap);
    }
    return result;
  }

  private static String args(String source, String sql) {
    return "{\"source\":\"" + source + "\",\"sql\":"
        + JsonNodeFactory.instance.stringNode(sql) + "}";
  }

  private static JsonNode structured(JsonNode result) {
    return AgentClient.structured(result);
  }

  private static String error(JsonNode result) {
    return AgentClient.error(result);
  }

  private static String rows(JsonNode result) {
    return structured(result).get("rows").toString();
  }
}
