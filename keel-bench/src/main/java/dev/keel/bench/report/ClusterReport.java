package dev.keel.bench.report;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Writes the cluster benchmark's report ({@code keel-bench/run-cluster.sh}): Keel in memory, one
 * Keel node with its state in Redis, and three Redis nodes behind HAProxy, scenario by scenario,
 * with the medians, the ratio to the in-memory node against the targets of issue 17, and the
 * Redis commands each call cost.
 *
 * <pre>
 * ClusterReport --results FILE --out FILE [--command TEXT] [--note TEXT]
 * </pre>
 */
public final class ClusterReport {

  /** The rows, in order: the server label the script gives each and what it is. */
  private static final List<String[]> ROWS = List.of(
      new String[] {"keel", "one node, in memory"},
      new String[] {"keel-redis", "one node, state in Redis"},
      new String[] {"keel-cluster3", "three Redis nodes behind HAProxy (round-robin)"});

  /** Scenario, what it is, the target ratio of one Redis node to the in-memory node. */
  private static final List<String[]> SCENARIOS = List.of(
      new String[] {"echo64", "legacy session `echo`, 64 connections", "0.5"},
      new String[] {"stateless64", "2026-07-28 stateless `echo`, 64 connections", "0.9"});

  private ClusterReport() {}

  public static void main(String[] args) throws Exception {
    java.util.Map<String, String> o = new java.util.HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      o.put(args[i].substring(2), args[i + 1]);
    }
    Runs runs = Runs.read(Path.of(o.get("results")));
    StringBuilder md = new StringBuilder();
    md.append("# Several nodes: the Redis stores beside the in-memory node\n\n");
    md.append("Written by `").append(o.getOrDefault("command", "keel-bench/run-cluster.sh"))
        .append("` on ").append(LocalDate.now()).append(" (").append(Machine.cpu())
        .append(", ").append(Machine.memory()).append(", JVM ")
        .append(System.getProperty("java.version")).append(").");
    if (o.containsKey("note")) {
      md.append(' ').append(o.get("note"));
    }
    md.append(" Medians of the repetitions; every row was measured in the same minutes as the "
        + "others, in turn. The servers and Redis share CPU 0, HAProxy and the driver CPU 1 when "
        + "the machine has two.\n\n");
    md.append("| scenario | server | calls/s | p99 ms | × in-memory | target | Redis commands "
        + "per call |\n| --- | --- | --- | --- | --- | --- | --- |\n");
    boolean allMet = true;
    for (String[] s : SCENARIOS) {
      OptionalDouble base = runs.median("keel", s[0], "perSecond");
      for (String[] row : ROWS) {
        OptionalDouble rate = runs.median(row[0], s[0], "perSecond");
        if (rate.isEmpty()) {
          continue;
        }
        String ratio = base.isPresent() && base.getAsDouble() > 0
            ? fmt(rate.getAsDouble() / base.getAsDouble()) : "–";
        String target = "–";
        if (row[0].equals("keel-redis")) {
          double want = Double.parseDouble(s[2]);
          boolean met = base.isPresent() && rate.getAsDouble() >= want * base.getAsDouble();
          allMet &= met;
          target = "≥ " + s[2] + (met ? " (met)" : " (**missed**)");
        }
        OptionalDouble perCall = runs.median(row[0], s[0] + "-redis", "redisCommandsPerCall");
        md.append("| ").append(s[1]).append(" | ").append(row[1]).append(" | ")
            .append(String.format(Locale.ROOT, "%,.0f", rate.getAsDouble())).append(" | ")
            .append(fmt(runs.median(row[0], s[0], "p99Ms").orElse(Double.NaN))).append(" | ")
            .append(ratio).append(" | ").append(target).append(" | ")
            .append(perCall.isPresent() ? fmt(perCall.getAsDouble()) : "–").append(" |\n");
      }
    }
    md.append("\nTargets (issue 17): one node with the Redis stores serves legacy `echo` at 64 "
        + "connections at ≥ 0.5× the in-memory node and stateless `echo` at ≥ 0.9× (a stateless "
        + "call needs no round trip to Redis). ")
        .append(allMet ? "Every target was met in this run." : "**A target was missed.**")
        .append("\n\nRedis commands per call: commands Redis processed during a separate "
            + "5-second run of the scenario, less what the nodes send when idle (heartbeats, "
            + "renewals), over the calls of that run. What each costs is in "
            + "[cluster.md](cluster.md#what-a-call-costs).\n");
    Path out = Path.of(o.get("out"));
    Files.createDirectories(out.toAbsolutePath().getParent());
    Files.writeString(out, md.toString());
    System.out.println(md);
  }

  private static String fmt(double v) {
    return Double.isNaN(v) ? "–" : String.format(Locale.ROOT, "%.2f", v);
  }
}
