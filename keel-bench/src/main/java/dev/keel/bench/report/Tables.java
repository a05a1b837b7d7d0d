package dev.keel.bench.report;

import static dev.keel.bench.report.BenchReport.JETTY_CORE;
import static dev.keel.bench.report.BenchReport.VERTX;
import static dev.keel.bench.report.BenchReport.KEEL;
import static dev.keel.bench.report.BenchReport.MINIMAL;
import static dev.keel.bench.report.BenchReport.QUARKUS;
import static dev.keel.bench.report.BenchReport.SDK;
import static dev.keel.bench.report.BenchReport.SDK_MODERN;
import static dev.keel.bench.report.BenchReport.SDK_STATELESS;
import static dev.keel.bench.report.BenchReport.millis;
import static dev.keel.bench.report.BenchReport.number;
import static dev.keel.bench.report.BenchReport.ratio;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import tools.jackson.databind.JsonNode;

/** The report's tables, one method each. */
final class Tables {

  /** Scenario labels, as the script passes them to the driver's {@code --label}. */
  static final String ECHO16 = "echo16";
  static final String ECHO64 = "echo64";
  static final String STATELESS64 = "stateless64";
  static final String SLEEP50 = "sleep50";
  static final String SESSIONS = "sessions";
  static final String IDLE = "idle";
  static final String CANCEL = "cancel";
  static final String PROBE = "keel-probe";
  static final String STARTUP = "startup";

  private final Runs runs;
  private final StringBuilder md;

  Tables(Runs runs, StringBuilder md) {
    this.runs = runs;
    this.md = md;
  }

  /** The servers a report can have, in the order of its columns, with their column names. */
  static final Map<String, String> SERVERS = servers();

  private static Map<String, String> servers() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put(KEEL, "Keel");
    m.put(QUARKUS, "Quarkus MCP");
    m.put(SDK, "SDK session");
    m.put(SDK_STATELESS, "SDK stateless");
    m.put(SDK_MODERN, "SDK modern");
    m.put(MINIMAL, "minimal");
    m.put(JETTY_CORE, "Jetty core");
    m.put(VERTX, "Vert.x");
    return m;
  }

  /** The scenarios, in the order of the rows, with what each row is called. */
  static final Map<String, String> SCENARIOS = ordered(
      ECHO16, "echo, 16 conns, legacy session",
      ECHO64, "echo, 64 conns, legacy session",
      STATELESS64, "echo, 64 conns, stateless (Keel: 2026-07-28)",
      SLEEP50, "sleep 50 ms, 64 conns",
      SESSIONS, "full sessions (initialize, initialized, call, DELETE), 64 conns");

  /** Client labels (the driver's {@code --label}) and the clients measured, in row order. */
  static final String CLIENT1 = "client1";
  static final String CLIENT64 = "client64";
  static final String KEEL_LEGACY_CLIENT = "keel-legacy";
  static final String SDK_LEGACY_CLIENT = "sdk-legacy";
  static final String KEEL_MODERN_CLIENT = "keel-modern";
  static final String SDK_MODERN_CLIENT = "sdk-modern";
  static final Map<String, String> CLIENTS = ordered(
      KEEL_LEGACY_CLIENT, "Keel client, 2025-11-25 session",
      SDK_LEGACY_CLIENT, "SDK client, 2025-11-25 session",
      "ts-legacy", "TypeScript SDK 1.32 client, 2025-11-25 session",
      KEEL_MODERN_CLIENT, "Keel client, 2026-07-28",
      SDK_MODERN_CLIENT, "SDK modern client, 2026-07-28",
      "ts-modern", "TypeScript SDK v2 client, 2026-07-28");

  /** The agent's engines (AgentBench's {@code server} is agent- or jdbc- and one of these). */
  static final Map<String, String> AGENT_ENGINES = ordered("h2", "H2 (embedded)",
      "postgresql", "PostgreSQL");
  /** The agent's result sizes, AgentBench's scenarios. */
  static final Map<String, String> AGENT_SIZES = ordered("query1", "1 row", "query500",
      "500 rows");

  /**
   * The processes whose start-up is measured (StartupBench's {@code --label}), in row order:
   * each as it starts by default, then with class-data sharing (an AppCDS archive from an
   * earlier run, {@code -XX:SharedArchiveFile}).
   */
  static final Map<String, String> STARTUPS = ordered(
      "keel-fixtures", "`keel fixtures`",
      "keel-agent", "`keel agent` (embedded H2 sample)",
      "quarkus", "Quarkus MCP (JVM mode)",
      "keel-fixtures-cds", "`keel fixtures`, AppCDS",
      "keel-agent-cds", "`keel agent`, AppCDS",
      "quarkus-cds", "Quarkus MCP, AppCDS");

  /** A map keeping the order its keys and values are given in, alternately. */
  private static Map<String, String> ordered(String... keysAndValues) {
    Map<String, String> m = new LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * One target: Keel's {@code field} in {@code scenario} against {@code peer}'s (or against
   * the ideal rate, for {@code peer} "ideal"), at least {@code min} times it, or for a latency
   * ({@code atMost}) at most {@code min} times it.
   */
  record Target(String subject, String scenario, String peer, String field, double min,
      boolean atMost, String issue) {

    Target(String scenario, String peer, String field, double min, boolean atMost,
        String issue) {
      this(KEEL, scenario, peer, field, min, atMost, issue);
    }
  }

  /** What a target's column says after the peer when it compares more than the rate. */
  private static final Map<String, String> FIELD_NOTES = ordered("p99Ms", " (p99)",
      "startupMs", " (start-up)", "rssBytes", " (idle RSS)");

  /** The targets, the current issue's first. */
  static final List<Target> TARGETS = List.of(
      new Target(ECHO16, QUARKUS, "perSecond", 1.1, false, "22"),
      new Target(ECHO64, QUARKUS, "perSecond", 1.1, false, "22"),
      new Target(SESSIONS, QUARKUS, "perSecond", 1.1, false, "22"),
      new Target(SLEEP50, "ideal", "perSecond", 0.95, false, "22"),
      new Target(ECHO64, MINIMAL, "perSecond", 1.0, false, "22"),
      new Target(ECHO64, MINIMAL, "p99Ms", 1.5, true, "22"),
      new Target(STATELESS64, SDK_MODERN, "perSecond", 2.0, false, "22"),
      new Target(KEEL_LEGACY_CLIENT, CLIENT64, SDK_LEGACY_CLIENT, "perSecond", 1.5, false, "22"),
      new Target(KEEL_MODERN_CLIENT, CLIENT64, SDK_MODERN_CLIENT, "perSecond", 1.5, false, "22"),
      new Target("keel-fixtures", STARTUP, QUARKUS, "startupMs", 1.0, true, "22"),
      new Target("keel-fixtures", STARTUP, QUARKUS, "rssBytes", 1.0, true, "22"),
      new Target("keel-agent", STARTUP, QUARKUS, "startupMs", 1.0, true, "22"),
      new Target("keel-agent", STARTUP, QUARKUS, "rssBytes", 1.0, true, "22"),
      new Target(ECHO64, SDK, "perSecond", 2.0, false, "earlier"),
      new Target(STATELESS64, SDK_STATELESS, "perSecond", 1.5, false, "earlier"),
      new Target(SESSIONS, SDK, "perSecond", 1.5, false, "earlier"));

  void throughput() {
    List<String> present = present();
    md.append("## Throughput (calls/s; full sessions: iterations/s)\n\n| scenario |");
    present.forEach(server -> md.append(' ').append(SERVERS.get(server)).append(" |"));
    for (String server : present) {
      if (!server.equals(KEEL)) {
        md.append(" Keel/").append(SERVERS.get(server)).append(" |");
      }
    }
    md.append("\n| --- |").append(" ---: |".repeat(2 * present.size() - 1)).append('\n');
    for (String scenario : SCENARIOS.keySet()) {
      String name = SCENARIOS.get(scenario);
      if (scenario.equals(SLEEP50)) {
        name += " (ideal " + number(runs.median(KEEL, SLEEP50, "idealPerSecond")) + ")";
      }
      md.append("| ").append(name).append(" |");
      present.forEach(server -> md.append(' ').append(number(rate(server, scenario))).append(" |"));
      for (String server : present) {
        if (!server.equals(KEEL)) {
          md.append(' ').append(ratio(rate(KEEL, scenario), rate(server, scenario))).append(" |");
        }
      }
      md.append('\n');
    }
    md.append("\nKeel, the SDK's modern server and the floors get 2026-07-28 requests (with `_meta` ")
        .append("and `Mcp-Method`/`Mcp-Name`) in the stateless row, the SDK's stateless transport ")
        .append("legacy requests without a session; Quarkus MCP speaks no 2026-07-28. The minimal ")
        .append("servlet answers every request with one fixed result, and Jetty core does the same ")
        .append("on Jetty's core `Handler` API without the servlet layer, Vert.x on a raw Vert.x ")
        .append("HTTP server (Quarkus's own server, without Quarkus): they are floors of work, ")
        .append("not MCP servers.\n\n");
  }

  void targets() {
    md.append("## Targets\n\n| issue | scenario | Keel against | measured | target | met |\n")
        .append("| --- | --- | --- | ---: | --- | --- |\n");
    for (Target t : TARGETS) {
      OptionalDouble keel = runs.median(t.subject(), t.scenario(), t.field());
      OptionalDouble peer = t.peer().equals("ideal")
          ? runs.median(t.subject(), t.scenario(), "idealPerSecond")
          : runs.median(t.peer(), t.scenario(), t.field());
      String against = t.peer().equals("ideal") ? "the ideal rate"
          : SERVERS.getOrDefault(t.peer(), CLIENTS.get(t.peer()))
              + FIELD_NOTES.getOrDefault(t.field(), "");
      String scenario = t.subject().equals(KEEL) ? t.scenario()
          : t.subject() + " " + t.scenario();
      String met = "";
      if (keel.isPresent() && peer.isPresent() && peer.getAsDouble() > 0) {
        double r = keel.getAsDouble() / peer.getAsDouble();
        met = (t.atMost() ? r <= t.min() : r >= t.min()) ? "yes" : "**no**";
      }
      md.append("| ").append(t.issue()).append(" | ").append(scenario).append(" | ")
          .append(against).append(" | ").append(ratio(keel, peer)).append(" | ")
          .append(t.atMost() ? "≤ " : "≥ ").append(String.format(Locale.ROOT, "%.2f×", t.min()))
          .append(" | ").append(met.isEmpty() ? "not measured" : met).append(" |\n");
    }
    md.append('\n');
  }


  void clients() {
    if (CLIENTS.keySet().stream().noneMatch(c -> runs.count(c, CLIENT64) > 0)) {
      return;
    }
    md.append("## Clients (one Keel server; calls/s, p50 / p99 ms)\n\n")
        .append("| client | 1 caller thread | 64 caller threads |\n| --- | ---: | ---: |\n");
    for (String client : CLIENTS.keySet()) {
      md.append("| ").append(CLIENTS.get(client));
      for (String label : List.of(CLIENT1, CLIENT64)) {
        OptionalDouble rate = runs.median(client, label, "perSecond");
        md.append(" | ").append(rate.isPresent() ? number(rate) + " (" + millis(runs.median(
            client, label, "p50Ms")) + " / " + millis(runs.median(client, label, "p99Ms")) + ")"
            : "—");
      }
      md.append(" |\n");
    }
    md.append("\nEach client is one instance shared by its caller threads, built as its ")
        .append("documentation shows with its defaults, in a JVM of its own on the driver's CPU, ")
        .append("calling `echo` on the same Keel server (`McpHttpServer`, the benchmark's ")
        .append("`keel` server) on the server's CPU. The TypeScript SDK's clients run in Node ")
        .append("22 instead, where the caller threads are calls in flight on its one event ")
        .append("loop.\n\n");
  }

  void agent() {
    if (AGENT_ENGINES.keySet().stream().noneMatch(e -> runs.count("agent-" + e, "query1") > 0)) {
      return;
    }
    md.append("## The database agent's own cost (`query`, one caller; p50 / p99 ms)\n\n")
        .append("| engine | result | plain JDBC | through the agent | the agent's own cost |")
        .append(" agent calls/s |\n| --- | --- | ---: | ---: | ---: | ---: |\n");
    for (Map.Entry<String, String> engine : AGENT_ENGINES.entrySet()) {
      for (Map.Entry<String, String> size : AGENT_SIZES.entrySet()) {
        String agent = "agent-" + engine.getKey();
        String jdbc = "jdbc-" + engine.getKey();
        if (runs.count(agent, size.getKey()) == 0) {
          continue;
        }
        md.append("| ").append(engine.getValue()).append(" | ").append(size.getValue())
            .append(" | ").append(pair(jdbc, size.getKey())).append(" | ")
            .append(pair(agent, size.getKey())).append(" | ")
            .append(ownCost(agent, jdbc, size.getKey(), "p50Ms")).append(" / ")
            .append(ownCost(agent, jdbc, size.getKey(), "p99Ms"))
            .append(" | ").append(number(runs.median(agent, size.getKey(), "perSecond")))
            .append(" |\n");
      }
    }
    md.append("\nThe same statement, `SELECT id, name, amount, created FROM bench_rows` (one row ")
        .append("by its key, or all 500 in key order), through plain JDBC on one open connection ")
        .append("reading every column, and as a 2026-07-28 `tools/call` of `query` through the ")
        .append("agent's engine in the same JVM (AgentBench): from the request's bytes to the ")
        .append("answer's, with the statement check and rewrite, the pool, the read-only ")
        .append("transaction and statement timeout, the bounded read and the JSON. HTTP is left ")
        .append("out; the server tables measure it. The agent's own cost is the agent's ")
        .append("percentile less plain JDBC's, p50 and p99 each. One caller thread, on the ")
        .append("driver's CPU; PostgreSQL runs on the server's.\n\n");
  }

  /** The agent's percentile less plain JDBC's, or a dash when either is missing. */
  private String ownCost(String agent, String jdbc, String scenario, String field) {
    OptionalDouble viaAgent = runs.median(agent, scenario, field);
    OptionalDouble plain = runs.median(jdbc, scenario, field);
    return viaAgent.isPresent() && plain.isPresent()
        ? fine(OptionalDouble.of(viaAgent.getAsDouble() - plain.getAsDouble())) : "—";
  }

  void startup() {
    if (STARTUPS.keySet().stream().noneMatch(p -> runs.count(p, STARTUP) > 0)) {
      return;
    }
    md.append("## Start-up and footprint (`java -jar`, pinned to the server's CPU)\n\n")
        .append("| process | to `listening on` (ms) | idle RSS | against Quarkus MCP (time / RSS) |")
        .append("\n| --- | ---: | ---: | ---: |\n");
    for (Map.Entry<String, String> p : STARTUPS.entrySet()) {
      if (runs.count(p.getKey(), STARTUP) == 0) {
        continue;
      }
      OptionalDouble ms = runs.median(p.getKey(), STARTUP, "startupMs");
      OptionalDouble rss = runs.median(p.getKey(), STARTUP, "rssBytes");
      String peer = p.getKey().endsWith("-cds") ? "quarkus-cds" : QUARKUS;
      md.append("| ").append(p.getValue()).append(" | ").append(number(ms)).append(" | ")
          .append(rss.isPresent() ? String.format(Locale.ROOT, "%.0f MiB",
              rss.getAsDouble() / (1 << 20)) : "—")
          .append(" | ").append(p.getKey().startsWith("quarkus") ? ""
              : ratio(ms, runs.median(peer, STARTUP, "startupMs")) + " / "
                  + ratio(rss, runs.median(peer, STARTUP, "rssBytes")))
          .append(" |\n");
    }
    md.append("\nFrom starting the process to the line saying it listens; the resident set is ")
        .append("read from `/proc` after it then sat idle for five seconds, before any request. ")
        .append("AppCDS rows run with an archive the same command wrote on an earlier run ")
        .append("(`-XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=...`, JDK 19+); ")
        .append("docs/performance.md says how to use it.\n\n");
  }

  private String pair(String server, String scenario) {
    OptionalDouble p50 = runs.median(server, scenario, "p50Ms");
    return p50.isPresent() ? fine(p50) + " / " + fine(runs.median(server, scenario, "p99Ms"))
        : "—";
  }

  /** Milliseconds to the microsecond: plain JDBC on H2 takes a few of them. */
  private static String fine(OptionalDouble value) {
    return value.isPresent() ? String.format(Locale.ROOT, "%.3f", value.getAsDouble()) : "—";
  }

  void latency() {
    List<String> present = present();
    md.append("## Latency (median p50 / p99, ms)\n\n| scenario |");
    present.forEach(server -> md.append(' ').append(SERVERS.get(server)).append(" |"));
    md.append("\n| --- |").append(" ---: |".repeat(present.size())).append('\n');
    for (String scenario : SCENARIOS.keySet()) {
      md.append("| ").append(scenario);
      for (String server : present) {
        OptionalDouble p50 = runs.median(server, scenario, "p50Ms");
        md.append(" | ").append(p50.isPresent()
            ? millis(p50) + " / " + millis(runs.median(server, scenario, "p99Ms")) : "—");
      }
      md.append(" |\n");
    }
    md.append('\n');
  }

  /** The servers with at least one run of a row's scenario, Keel always. */
  private List<String> present() {
    List<String> present = new ArrayList<>();
    for (String server : SERVERS.keySet()) {
      if (server.equals(KEEL) || SCENARIOS.keySet().stream().anyMatch(s -> runs.count(server, s) > 0)) {
        present.add(server);
      }
    }
    return present;
  }

  void idle(String xmx) {
    md.append("## Idle capacity (legacy sessions, each with an open GET listening stream)\n\n")
        .append("| server | heap | sessions | streams open | heap per session | RSS per session ")
        .append("| calls/s after | errors | streams still open | met |\n")
        .append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (String server : new String[] {KEEL, SDK}) {
      for (JsonNode r : runs.of(server, IDLE)) {
        long sessions = r.path("sessions").asLong();
        boolean met = r.path("streams").asLong() == sessions && r.path("errors").asLong() == 0
            && r.path("streamsOpenAfter").asLong() == sessions && r.path("followUpOk").asLong() > 0;
        md.append("| ").append(server).append(" | -Xmx").append(xmx).append(" | ")
            .append(String.format(Locale.ROOT, "%,d", sessions)).append(" | ")
            .append(String.format(Locale.ROOT, "%,d", r.path("streams").asLong())).append(" | ")
            .append(bytes(r.path("heapBytesPerSession").asLong())).append(" | ")
            .append(bytes(r.path("rssBytesPerSession").asLong())).append(" | ")
            .append(number(OptionalDouble.of(r.path("followUpPerSecond").asDouble()))).append(" | ")
            .append(r.path("errors").asLong()).append(" | ")
            .append(String.format(Locale.ROOT, "%,d", r.path("streamsOpenAfter").asLong()))
            .append(" | ").append(server.equals(KEEL) ? (met ? "yes" : "**no**") : "").append(" |\n");
      }
    }
    md.append("\nHeap per session is the growth of the heap in use after a full GC, divided by the ")
        .append("sessions; RSS per session also counts the JVM growing its heap and JIT code, so it is ")
        .append("an upper bound. Target: 10,000 sessions fit in a 256 MB heap and later calls are ")
        .append("still served.\n\n");
  }

  void cancellation() {
    md.append("## Cancellation latency (Keel)\n\nFrom the arrival of `notifications/cancelled` at the ")
        .append("servlet to the blocked handler seeing its interrupt, measured inside the server. ")
        .append("*Tripped* is the part that is Keel's own work: arrival to the moment Keel has ")
        .append("tripped the request's token and interrupted its thread; the rest is the wait ")
        .append("for the operating system to run the interrupted handler on the one core.\n\n")
        .append("| cancellations measured | p50 ms | p99 ms | max ms | tripped p50 / p99 ms ")
        .append("| failures | target | met |\n")
        .append("| ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
    for (JsonNode r : runs.of(PROBE, CANCEL)) {
      double p99 = r.path("p99Ms").asDouble();
      md.append("| ").append(r.path("measured").asLong()).append(" | ")
          .append(millis(OptionalDouble.of(r.path("p50Ms").asDouble()))).append(" | ")
          .append(millis(OptionalDouble.of(p99))).append(" | ")
          .append(millis(OptionalDouble.of(r.path("maxMs").asDouble()))).append(" | ")
          .append(r.has("trippedP99Ms")
              ? millis(OptionalDouble.of(r.path("trippedP50Ms").asDouble())) + " / "
                  + millis(OptionalDouble.of(r.path("trippedP99Ms").asDouble()))
              : "—").append(" | ")
          .append(r.path("errors").asLong()).append(" | p99 ≤ 5 ms over 1,000 | ")
          .append(p99 <= 5.0 && r.path("measured").asLong() >= 1000 ? "yes" : "**no**")
          .append(" |\n");
    }
    md.append('\n');
  }

  void allRuns() {
    md.append("## Every run\n\n*Server CPU* is the server process's CPU time (all threads) per call ")
        .append("inside the measured window: it leaves out the time a stalled machine takes away, so ")
        .append("two builds of one server compare by it where their calls/s drift.\n\n")
        .append("| server | scenario | rep | calls/s | p50 ms | p99 ms | server CPU µs/call ")
        .append("| errors | RSS MB |\n")
        .append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (JsonNode r : runs.all()) {
      md.append("| ").append(r.path("server").asString()).append(" | ")
          .append(r.path("scenario").asString()).append(" | ").append(r.path("rep").asInt())
          .append(" | ").append(r.has("perSecond")
              ? number(OptionalDouble.of(r.get("perSecond").asDouble())) : "—")
          .append(" | ").append(r.has("p50Ms") ? r.get("p50Ms").asString() : "—")
          .append(" | ").append(r.has("p99Ms") ? r.get("p99Ms").asString() : "—")
          .append(" | ").append(r.has("serverCpuUsPerCall")
              ? r.get("serverCpuUsPerCall").asString() : "—")
          .append(" | ").append(r.path("errors").asLong())
          .append(" | ").append(r.path("rssMb").asString()).append(" |\n");
    }
    md.append('\n');
  }

  private OptionalDouble rate(String server, String scenario) {
    return runs.median(server, scenario, "perSecond");
  }

  private static String bytes(long value) {
    if (value < 0) {
      return "—";
    }
    return value >= 10_240 ? String.format(Locale.ROOT, "%,.1f KiB", value / 1024.0)
        : String.format(Locale.ROOT, "%,d B", value);
  }
}
