package dev.keel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.bench.driver.AgentBench;
import dev.keel.bench.driver.ClientBench;
import dev.keel.bench.driver.Driver;
import dev.keel.bench.driver.StartupBench;
import dev.keel.bench.report.BenchReport;
import dev.keel.bench.servers.BenchServer;
import dev.keel.bench.servers.BenchServer.Kind;
import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmark's smoke run, part of {@code mvn verify} so it cannot rot: every compared server
 * answers every scenario it takes part in with no errors, idle capacity and cancellation
 * latency measure something, and the report comes out. Runs are a second or two each and have
 * no thresholds; the servers run side by side to keep this test short.
 */
class BenchmarkSmokeTest {

  static final String[] SHORT = {"--warmup", "0", "--duration", "2", "--conns", "4"};

  @TempDir
  Path dir;

  @Test
  void everyServerAnswersEveryScenarioAndTheReportIsWritten() throws Exception {
    Path results = dir.resolve("results.jsonl");
    List<BenchServer> servers = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(7);
    try {
      List<Future<List<Map<String, Object>>>> runs = new ArrayList<>();
      for (Kind kind : List.of(Kind.KEEL, Kind.SDK_SESSION, Kind.SDK_STATELESS, Kind.SDK_MODERN,
          Kind.MINIMAL, Kind.JETTY_CORE, Kind.VERTX)) {
        BenchServer server = BenchServer.start(kind, 0, 1_000);
        servers.add(server);
        runs.add(pool.submit(() -> scenarios(kind, server.endpoint(), results)));
      }
      for (Future<List<Map<String, Object>>> run : runs) {
        for (Map<String, Object> r : run.get()) {
          assertThat(r.get("errors")).as("errors in %s", r).isEqualTo(0L);
          assertThat((Long) r.get("ok")).as("calls completed in %s", r).isPositive();
        }
      }
      BenchServer keel = servers.get(0);
      Map<String, Object> idle = Driver.run("--url", keel.endpoint(), "--server", "keel",
          "--scenario", "idle", "--sessions", "200", "--duration", "1",
          "--pid", Long.toString(ProcessHandle.current().pid()), "--out", results.toString());
      assertThat(idle).containsEntry("streams", 200).containsEntry("streamsOpenAfter", 200)
          .containsEntry("errors", 0L);
      assertThat((Long) idle.get("followUpOk")).isPositive();
      assertThat((Long) idle.get("heapBytesPerSession")).isPositive();
    } finally {
      pool.shutdownNow();
      for (BenchServer s : servers) {
        s.close();
      }
    }
    try (BenchServer probe = BenchServer.start(Kind.KEEL_PROBE, 0, 1_000)) {
      Map<String, Object> cancel = Driver.run("--url", probe.endpoint(), "--server",
          "keel-probe", "--label", "cancel", "--scenario", "cancel", "--cancels", "40",
          // measured counts only the 40: the warm-up ones must have been forgotten
          "--warmup-cancels", "20",
          "--conns", "2", "--out", results.toString());
      assertThat(cancel).containsEntry("measured", 40).containsEntry("errors", 0);
      assertThat((Double) cancel.get("p99Ms")).isPositive();
      // Keel's own share (to the token tripped) is part of the whole, never more.
      assertThat((Double) cancel.get("trippedP99Ms")).isPositive()
          .isLessThanOrEqualTo((Double) cancel.get("p99Ms"));
    }

    // the agent's own cost, on H2 (the PostgreSQL rows need the server run.sh starts)
    AgentBench.main(new String[] {"--engine", "h2", "--warmup", "0", "--duration", "0.5",
        "--out", results.toString()});

    // start-up, of the fixture server from this test's own class path
    Map<String, Object> startup = StartupBench.run(Map.of("label", "keel-fixtures", "idle",
        "0.2"), List.of(Path.of(System.getProperty("java.home"),
        "bin", "java").toString(), "-cp", System.getProperty("java.class.path"),
        "dev.keel.cli.Main", "fixtures", "--port", "0"));
    assertThat((Double) startup.get("startupMs")).isPositive();
    assertThat((Long) startup.get("rssBytes")).isPositive();
    Files.writeString(results, new tools.jackson.databind.json.JsonMapper()
        .writeValueAsString(startup) + "\n", java.nio.file.StandardOpenOption.APPEND);

    Path report = dir.resolve("benchmarks.md");
    BenchReport.main(new String[] {"--results", results.toString(), "--out", report.toString(),
        "--mode", "smoke", "--reps", "1"});
    String md = Files.readString(report);
    assertThat(md).contains("| echo, 64 conns, legacy session |", "Keel/SDK session",
        "Keel/minimal", "## Targets", "## Idle capacity", "## Cancellation latency",
        "## Where it ran");
    // Keel, SDK session, SDK stateless and SDK modern (no echo64: —), minimal, Jetty core,
    // Vert.x, then Keel's ratio to each
    assertThat(md).containsPattern("\\| echo, 64 conns, legacy session \\| [0-9,]+ \\| [0-9,]+ "
        + "\\| — \\| — \\| [0-9,]+ \\| [0-9,]+ \\| [0-9,]+ \\| [0-9.]+× \\| — \\| — "
        + "\\| [0-9.]+× \\| [0-9.]+× \\| [0-9.]+× \\|");
    assertThat(md).containsPattern("\\| 22 \\| stateless64 \\| SDK modern \\| [0-9.]+× \\| ≥ 2.00× "
        + "\\| (yes|\\*\\*no\\*\\*) \\|");
    // a target whose peer ran is judged; Quarkus, which the smoke run leaves out, is not
    assertThat(md).containsPattern("\\| earlier \\| echo64 \\| SDK session \\| [0-9.]+× \\| ≥ 2.00× "
        + "\\| (yes|\\*\\*no\\*\\*) \\|");
    assertThat(md).contains("| 22 | echo16 | Quarkus MCP | — | ≥ 1.10× | not measured |");
    assertThat(md).containsPattern("\\| `keel fixtures` \\| [0-9,]+ \\| [0-9]+ MiB \\| — / — \\|");
    assertThat(md).contains("| 22 | keel-fixtures startup | Quarkus MCP (start-up) | — |");
    for (String size : List.of("1 row", "500 rows")) {
      assertThat(md).containsPattern("\\| H2 \\(embedded\\) \\| " + size
          + " \\| [0-9.]+ / [0-9.]+ \\| [0-9.]+ / [0-9.]+ \\| -?[0-9.]+ / -?[0-9.]+ \\| [0-9,]+ \\|");
    }
  }

  /** Every measured client calls the benchmark's Keel server with no error, in both eras. */
  @Test
  void everyClientOfTheClientBenchmarkCallsEcho() throws Exception {
    try (BenchServer keel = BenchServer.start(Kind.KEEL, 0, 1_000)) {
      Path ts = typeScriptClients();
      for (String client : List.of("keel-legacy", "sdk-legacy", "ts-legacy", "keel-modern",
          "sdk-modern", "ts-modern")) {
        Map<String, Object> r = ClientBench.run(Map.of("url", keel.endpoint(), "client", client,
            "threads", "2", "warmup", "0", "duration", "1", "ts-dir", ts.toString()));
        assertThat(r.get("errors")).as("errors of %s: %s", client, r.get("firstError"))
            .isEqualTo(0L);
        assertThat((Long) r.get("ok")).as("calls of %s", client).isPositive();
      }
    }
  }

  /** Installs the TypeScript SDK clients' pinned packages (npm ci), once per checkout. */
  private static Path typeScriptClients() throws Exception {
    Path dir = Path.of("peers/ts-client").toAbsolutePath();
    if (!Files.isExecutable(dir.resolve("node_modules/.bin/node"))
        || !Files.isDirectory(dir.resolve("node_modules/@modelcontextprotocol/client"))) {
      Process npm = new ProcessBuilder("npm", "ci", "--no-audit", "--no-fund")
          .directory(dir.toFile()).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      assertThat(npm.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)).as("npm ci in time")
          .isTrue();
      assertThat(npm.exitValue()).as("npm ci in " + dir).isZero();
    }
    return dir;
  }

  /** {@code ./keel fixtures} serves echo and sleep as the benchmark calls them (a contract). */
  @Test
  void theFixtureServerAnswersTheBenchmarkToolsInBothEras() throws Exception {
    McpServer server = FixtureServer.create();
    try (McpHttpServer http = McpHttpServer.builder(server).port(0).start()) {
      String url = http.endpoint().toString();
      for (String style : List.of("session", "modern")) {
        // this JVM is the server, so its CPU clock is the one the driver reads
        Map<String, Object> echo = Driver.run("--url", url, "--scenario", "echo",
            "--style", style, "--warmup", "0", "--duration", "1", "--conns", "2",
            "--pid", Long.toString(ProcessHandle.current().pid()));
        assertThat((Double) echo.get("serverCpuUsPerCall")).as("server CPU per call in %s", echo)
            .isPositive();
        Map<String, Object> sleep = Driver.run("--url", url, "--scenario", "sleep",
            "--ms", "5", "--style", style, "--warmup", "0", "--duration", "1", "--conns", "2");
        for (Map<String, Object> r : List.of(echo, sleep)) {
          assertThat(r.get("errors")).as("errors in %s", r).isEqualTo(0L);
          assertThat((Long) r.get("ok")).as("calls completed in %s", r).isPositive();
        }
      }
    } finally {
      server.close();
    }
  }

  private static List<Map<String, Object>> scenarios(Kind kind, String url, Path results)
      throws Exception {
    List<String[]> plan = new ArrayList<>();
    if (kind == Kind.SDK_STATELESS) {
      plan.add(new String[] {"stateless64", "echo", "legacy-stateless"});
      plan.add(new String[] {"sleep50", "sleep", "legacy-stateless"});
    } else if (kind == Kind.SDK_MODERN) {
      plan.add(new String[] {"stateless64", "echo", "modern"});
      plan.add(new String[] {"sleep50", "sleep", "modern"});
    } else {
      plan.add(new String[] {"echo64", "echo", "session"});
      plan.add(new String[] {"sleep50", "sleep", "session"});
      plan.add(new String[] {"sessions", "sessions", "session"});
      if (kind != Kind.SDK_SESSION) {
        plan.add(new String[] {"stateless64", "echo", "modern"});
      }
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (String[] p : plan) {
      out.add(Driver.run(concat("--url", url, "--server", kind.label(), "--label", p[0],
          "--scenario", p[1], "--style", p[2], "--ms", "20", "--out", results.toString())));
    }
    return out;
  }

  private static String[] concat(String... head) {
    String[] all = new String[head.length + SHORT.length];
    System.arraycopy(head, 0, all, 0, head.length);
    System.arraycopy(SHORT, 0, all, head.length, SHORT.length);
    return all;
  }
}
