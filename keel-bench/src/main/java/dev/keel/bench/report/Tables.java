package dev.keel.bench.report;

import static dev.keel.bench.report.BenchReport.KEEL;
import static dev.keel.bench.report.BenchReport.MINIMAL;
import static dev.keel.bench.report.BenchReport.SDK;
import static dev.keel.bench.report.BenchReport.SDK_STATELESS;
import static dev.keel.bench.report.BenchReport.millis;
import static dev.keel.bench.report.BenchReport.number;
import static dev.keel.bench.report.BenchReport.ratio;

import java.util.Locale;
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

  private final Runs runs;
  private final StringBuilder md;

  Tables(Runs runs, StringBuilder md) {
    this.runs = runs;
    this.md = md;
  }

  void throughput() {
    md.append("## Throughput (calls/s; full sessions: iterations/s)\n\n")
        .append("| scenario | Keel | SDK session | SDK stateless | minimal | Keel/SDK | Keel/minimal")
        .append(" | target | met |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n");
    callRow("echo, 16 conns, legacy session", ECHO16, SDK, null, null);
    callRow("echo, 64 conns, legacy session", ECHO64, SDK, "≥ 2.0× SDK session, ≥ 0.70× minimal",
        new double[] {2.0, 0.70});
    callRow("echo, 64 conns, stateless (Keel: 2026-07-28)", STATELESS64, SDK_STATELESS,
        "≥ 1.5× SDK stateless", new double[] {1.5, 0});
    sleepRow();
    callRow("full sessions (initialize, initialized, call, DELETE), 64 conns", SESSIONS, SDK,
        "≥ 1.5× SDK session", new double[] {1.5, 0});
    md.append("\nKeel/SDK compares with the SDK's session transport, except in the stateless row, where ")
        .append("it compares with the SDK's stateless transport (legacy requests without a session; ")
        .append("Keel gets 2026-07-28 requests with their `_meta` and `Mcp-Method`/`Mcp-Name` headers). ")
        .append("The minimal servlet answers every request with one fixed result: it is the floor of ")
        .append("work, not an MCP server.\n\n");
  }

  private void callRow(String name, String scenario, String sdk, String target, double[] mins) {
    OptionalDouble keel = rate(KEEL, scenario);
    OptionalDouble peer = rate(sdk, scenario);
    OptionalDouble floor = rate(MINIMAL, scenario);
    String met = "";
    if (mins != null && keel.isPresent()) {
      boolean ok = peer.isPresent() && keel.getAsDouble() >= mins[0] * peer.getAsDouble();
      if (mins[1] > 0) {
        ok &= floor.isPresent() && keel.getAsDouble() >= mins[1] * floor.getAsDouble();
      }
      met = ok ? "yes" : "**no**";
    }
    md.append("| ").append(name).append(" | ").append(number(keel)).append(" | ")
        .append(number(rate(SDK, scenario))).append(" | ")
        .append(number(rate(SDK_STATELESS, scenario))).append(" | ").append(number(floor))
        .append(" | ").append(ratio(keel, peer)).append(" | ").append(ratio(keel, floor))
        .append(" | ").append(target == null ? "" : target).append(" | ").append(met).append(" |\n");
  }

  private void sleepRow() {
    OptionalDouble keel = rate(KEEL, SLEEP50);
    OptionalDouble ideal = runs.median(KEEL, SLEEP50, "idealPerSecond");
    String met = keel.isPresent() && ideal.isPresent()
        ? (keel.getAsDouble() >= 0.9 * ideal.getAsDouble() ? "yes" : "**no**") : "";
    md.append("| sleep 50 ms, 64 conns, legacy session (ideal ").append(number(ideal)).append(") | ")
        .append(number(keel)).append(" | ").append(number(rate(SDK, SLEEP50))).append(" | ")
        .append(number(rate(SDK_STATELESS, SLEEP50))).append(" | ")
        .append(number(rate(MINIMAL, SLEEP50))).append(" | ")
        .append(ratio(keel, rate(SDK, SLEEP50))).append(" | ")
        .append(ratio(keel, rate(MINIMAL, SLEEP50))).append(" | ≥ 0.90× ideal (Keel: ")
        .append(ratio(keel, ideal)).append(") | ").append(met).append(" |\n");
  }

  void latency() {
    md.append("## Latency (median p50 / p99, ms)\n\n| scenario | Keel | SDK session | SDK stateless ")
        .append("| minimal |\n| --- | ---: | ---: | ---: | ---: |\n");
    for (String scenario : new String[] {ECHO16, ECHO64, STATELESS64, SLEEP50, SESSIONS}) {
      md.append("| ").append(scenario);
      for (String server : new String[] {KEEL, SDK, SDK_STATELESS, MINIMAL}) {
        OptionalDouble p50 = runs.median(server, scenario, "p50Ms");
        md.append(" | ").append(p50.isPresent()
            ? millis(p50) + " / " + millis(runs.median(server, scenario, "p99Ms")) : "—");
      }
      md.append(" |\n");
    }
    md.append('\n');
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
    md.append("## Every run\n\n| server | scenario | rep | calls/s | p50 ms | p99 ms | errors | RSS MB |\n")
        .append("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    for (JsonNode r : runs.all()) {
      md.append("| ").append(r.path("server").asString()).append(" | ")
          .append(r.path("scenario").asString()).append(" | ").append(r.path("rep").asInt())
          .append(" | ").append(r.has("perSecond")
              ? number(OptionalDouble.of(r.get("perSecond").asDouble())) : "—")
          .append(" | ").append(r.has("p50Ms") ? r.get("p50Ms").asString() : "—")
          .append(" | ").append(r.has("p99Ms") ? r.get("p99Ms").asString() : "—")
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
