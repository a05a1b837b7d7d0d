package dev.keel.bench.driver;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * The load driver: runs one scenario against any MCP endpoint and prints calls/s, p50, p99,
 * errors and the server's RSS; with {@code --out} it also appends the result as one JSON line.
 *
 * <pre>
 * Driver --url http://127.0.0.1:PORT/mcp --scenario echo|sleep|sessions|idle|cancel
 *        [--style session|legacy-stateless|modern] [--conns 64] [--warmup 5] [--duration 10]
 *        [--ms 50] [--sessions 10000] [--cancels 1000] [--warmup-cancels 0]
 *        [--settle SECONDS] [--pid PID]
 *        [--server NAME] [--label NAME] [--rep N] [--out results.jsonl]
 * </pre>
 *
 * Scenarios: {@code echo} and {@code sleep} call one tool in a loop on each connection (in the
 * {@code session} style every connection opens its own session first and reuses it);
 * {@code sessions} runs whole session lifetimes (initialize, initialized, one echo call,
 * DELETE); {@code idle} opens {@code --sessions} sessions each with a GET listening stream,
 * reports the server's memory per session, then checks that calls are still served;
 * {@code cancel} measures cancellation latency against the probed Keel server, after
 * {@code --warmup-cancels} unmeasured ones on the same connections and a pause of
 * {@code --settle} seconds.
 */
public final class Driver {

  private final Map<String, String> options;
  private final URI url;
  private final InetSocketAddress address;
  private final Wire wire;
  private final ServerMemory memory;
  private final ServerCpu cpu;

  Driver(Map<String, String> options) {
    this.options = options;
    this.url = URI.create(required("url"));
    this.address = new InetSocketAddress(url.getHost(), url.getPort());
    this.wire = new Wire(url.getHost(), url.getPort(), url.getPath());
    long pid = Long.parseLong(options.getOrDefault("pid", "0"));
    this.memory = new ServerMemory(pid);
    this.cpu = new ServerCpu(pid);
  }

  public static void main(String[] args) throws Exception {
    Map<String, Object> result = run(args);
    System.out.println(summary(result));
    if (Boolean.TRUE.equals(result.get("failed"))) {
      System.exit(1);
    }
  }

  /** Runs the scenario {@code args} describe and returns its result (also written to --out). */
  public static Map<String, Object> run(String... args) throws Exception {
    Map<String, String> options = ResultLines.options(args);
    Driver driver = new Driver(options);
    Map<String, Object> result = new LinkedHashMap<>();
    result.put("server", options.getOrDefault("server", driver.url.toString()));
    result.put("scenario", options.getOrDefault("label", options.get("scenario")));
    result.put("rep", Integer.parseInt(options.getOrDefault("rep", "1")));
    driver.runScenario(result);
    result.put("rssMb", mb(driver.memory.rssBytes()));
    ResultLines.save(options, result);
    return result;
  }

  private void runScenario(Map<String, Object> result) throws Exception {
    String scenario = required("scenario");
    switch (scenario) {
      case "echo":
        load(result, () -> call("echo", "{\"text\":\"hello, keel\"}"));
        break;
      case "sleep":
        load(result, () -> call("sleep", "{\"ms\":" + intOption("ms", 50) + "}"));
        result.put("idealPerSecond", intOption("conns", 64) * 1000.0 / intOption("ms", 50));
        break;
      case "sessions":
        load(result, () -> new Scripts.SessionCycle(wire));
        break;
      case "idle":
        new IdleScenario(address, wire, memory).run(intOption("sessions", 10_000),
            intOption("duration", 3), result);
        break;
      case "cancel":
        cancel(result);
        break;
      default:
        throw new IllegalArgumentException("unknown scenario " + scenario);
    }
  }

  private Script call(String tool, String arguments) {
    Wire.Style style = Wire.Style.valueOf(options.getOrDefault("style", "session")
        .toUpperCase(java.util.Locale.ROOT).replace('-', '_'));
    return new Scripts.CallLoop(wire, style, tool, arguments);
  }

  private void load(Map<String, Object> result, java.util.function.Supplier<Script> scripts)
      throws IOException {
    int conns = intOption("conns", 64);
    List<Script> list = new ArrayList<>();
    for (int i = 0; i < conns; i++) {
      list.add(scripts.get());
    }
    Stats stats = new LoadEngine(address, cpu).run(list, intOption("warmup", 5),
        intOption("duration", 10), java.util.concurrent.TimeUnit.SECONDS);
    result.put("conns", conns);
    result.put("perSecond", round(stats.perSecond()));
    result.put("p50Ms", round(stats.percentileMillis(0.50)));
    result.put("p99Ms", round(stats.percentileMillis(0.99)));
    if (stats.serverCpuMicrosPerCall() >= 0) {
      result.put("serverCpuUsPerCall", round(stats.serverCpuMicrosPerCall()));
    }
    result.put("ok", stats.ok);
    result.put("errors", stats.errors);
    if (stats.firstError != null) {
      result.put("firstError", truncate(stats.firstError));
    }
  }

  private void cancel(Map<String, Object> result) throws Exception {
    CancelLatency latency = new CancelLatency(address, wire);
    int cancels = intOption("cancels", 1000);
    int failures = latency.run(intOption("warmup-cancels", 0),
        1000L * intOption("settle", 0), cancels, intOption("conns", 4));
    Map<?, ?> server = JsonMapper.builder().build().readValue(latency.serverStats(), Map.class);
    result.put("cancels", cancels);
    result.put("measured", server.get("count"));
    result.put("early", server.get("early"));
    result.put("p50Ms", ((Number) server.get("p50Micros")).doubleValue() / 1000);
    result.put("p99Ms", ((Number) server.get("p99Micros")).doubleValue() / 1000);
    result.put("maxMs", ((Number) server.get("maxMicros")).doubleValue() / 1000);
    result.put("trippedP50Ms", ((Number) server.get("trippedP50Micros")).doubleValue() / 1000);
    result.put("trippedP99Ms", ((Number) server.get("trippedP99Micros")).doubleValue() / 1000);
    result.put("errors", failures);
    if (latency.firstFailure() != null) {
      result.put("firstError", truncate(latency.firstFailure()));
    }
  }

  static String summary(Map<String, Object> r) {
    StringBuilder b = new StringBuilder();
    r.forEach((k, v) -> b.append(k).append('=').append(v).append("  "));
    return b.toString().trim();
  }

  private String required(String name) {
    String value = options.get(name);
    if (value == null) {
      throw new IllegalArgumentException("--" + name + " is required");
    }
    return value;
  }

  private int intOption(String name, int fallback) {
    return Integer.parseInt(options.getOrDefault(name, Integer.toString(fallback)));
  }

  static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  static double mb(long bytes) {
    return bytes < 0 ? -1 : round(bytes / (1024.0 * 1024.0));
  }

  private static String truncate(String text) {
    return text.length() > 300 ? text.substring(0, 300) + "…" : text;
  }
}
