package dev.keel.bench.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import tools.jackson.databind.JsonNode;

/**
 * Writes {@code docs/benchmarks.md} from the driver's result lines: a table of medians with
 * Keel's ratio to each other server, the targets of the performance issues, idle capacity,
 * cancellation latency, every run, and the machine and JVM it ran on.
 *
 * <pre>
 * BenchReport --results results.jsonl --out docs/benchmarks.md
 *             [--mode full|quick] [--warmup S] [--duration S] [--reps N] [--xmx 256m]
 *             [--note TEXT] [--command TEXT]
 * </pre>
 */
public final class BenchReport {

  static final String KEEL = "keel";
  static final String SDK = "sdk-session";
  static final String SDK_STATELESS = "sdk-stateless";
  static final String MINIMAL = "minimal";
  static final String QUARKUS = "quarkus";
  static final String SDK_MODERN = "sdk-modern";
  static final String JETTY_CORE = "jetty-core";
  static final String VERTX = "vertx";

  private final Runs runs;
  private final Map<String, String> options;
  private final StringBuilder md = new StringBuilder();

  BenchReport(Runs runs, Map<String, String> options) {
    this.runs = runs;
    this.options = options;
  }

  public static void main(String[] args) throws IOException {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Runs runs = Runs.read(Path.of(options.get("results")));
    String text = new BenchReport(runs, options).render();
    Files.writeString(Path.of(options.get("out")), text, StandardCharsets.UTF_8);
    System.out.println(text);
  }

  String render() {
    md.append("# Benchmarks\n\n");
    md.append("Keel beside Quarkus MCP, the official MCP Java SDK and a minimal servlet, measured ")
        .append("by `keel-bench` (see [Running the benchmark](#running-the-benchmark)). Every number is the median of ")
        .append(options.getOrDefault("reps", "3")).append(" repetitions after warm-up; compare ")
        .append("the ratios, which were measured side by side in one run, not the absolute numbers, ")
        .append("which drift between runs and machines.\n\n");
    if (options.containsKey("note")) {
      md.append("> **").append(options.get("note")).append("**\n\n");
    }
    new Tables(runs, md).throughput();
    new Tables(runs, md).targets();
    new Tables(runs, md).latency();
    new Tables(runs, md).clients();
    new Tables(runs, md).agent();
    new Tables(runs, md).startup();
    new Tables(runs, md).idle(options.getOrDefault("xmx", "256m"));
    new Tables(runs, md).cancellation();
    environment();
    howToRun();
    new Tables(runs, md).allRuns();
    return md.toString();
  }

  private void environment() {
    md.append("## Where it ran\n\n| | |\n| --- | --- |\n");
    row("date", ZonedDateTime.now(ZoneOffset.UTC)
        .format(DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm 'UTC'")));
    row("machine", Machine.cpu() + ", " + Runtime.getRuntime().availableProcessors()
        + " cores visible to the report, " + Machine.memory());
    row("OS", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    row("JVM", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
        + " (servers and driver alike)");
    row("pinning", options.getOrDefault("pinning",
        "server on CPU 0, driver on CPU 1 (`taskset`)") + "; a server that sees one CPU gets "
        + "the Serial GC from the JVM's ergonomics, every server alike");
    row("mode", options.getOrDefault("mode", "full") + ": warm-up "
        + options.getOrDefault("warmup", "?") + " s per server, "
        + options.getOrDefault("duration", "?") + " s per measured run, "
        + options.getOrDefault("reps", "?") + " repetitions");
    row("servers", "Keel (`McpHttpServer`), official SDK 2.2.0 "
        + "(`HttpServletStreamableServerTransportProvider`, `HttpServletStatelessServerTransport`, "
        + "sync tools; its 2026-07-28 `modern` server with `HttpServletMcpTransport`), minimal "
        + "servlet (Jackson parse, fixed result) and the same on Jetty's core `Handler`; all on "
        + "Jetty 12.1.14, 200 threads, 1 acceptor, 1 selector. The same minimal work on a raw "
        + "Vert.x 5.0.7 HTTP server (one event loop; `sleep` as a timer). Quarkus MCP 1.13.0 on Quarkus "
        + "3.33.2 (Vert.x), JVM mode, plain `@Tool` methods, its defaults "
        + "(`keel-bench/peers/quarkus-mcp`)");
    md.append('\n');
  }

  private void howToRun() {
    md.append("## Running the benchmark\n\n```bash\n")
        .append(options.getOrDefault("command", "keel-bench/run.sh"))
        .append("\n```\n\nSee `keel-bench/README.md` for the scenarios, options and a quick mode.\n\n");
  }

  private void row(String name, String value) {
    md.append("| ").append(name).append(" | ").append(value).append(" |\n");
  }

  static String number(OptionalDouble value) {
    return value.isPresent() ? String.format(Locale.ROOT, "%,.0f", value.getAsDouble()) : "—";
  }

  static String ratio(OptionalDouble a, OptionalDouble b) {
    if (a.isEmpty() || b.isEmpty() || b.getAsDouble() == 0) {
      return "—";
    }
    return String.format(Locale.ROOT, "%.2f×", a.getAsDouble() / b.getAsDouble());
  }

  static String millis(OptionalDouble value) {
    return value.isPresent() ? String.format(Locale.ROOT, "%.2f", value.getAsDouble()) : "—";
  }

  static String text(JsonNode node) {
    return node == null || node.isMissingNode() ? "—" : node.asString();
  }
}
