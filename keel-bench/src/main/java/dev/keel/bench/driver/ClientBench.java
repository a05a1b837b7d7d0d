package dev.keel.bench.driver;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.modern.client.McpSyncClient;
import io.modelcontextprotocol.modern.client.transport.HttpClientMcpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;

/**
 * The client side measured: {@code threads} caller threads share one client of the given kind
 * and call {@code echo} on one server for {@code duration} seconds, after {@code warmup}
 * seconds that are not counted. Prints calls/s, p50 and p99 (ms) and errors as one JSON line,
 * the shape {@code Driver} writes, so that the report reads both.
 *
 * <pre>
 * ClientBench --url URL --client keel-legacy|keel-modern|sdk-legacy|sdk-modern|ts-legacy|ts-modern
 *             [--threads N] [--duration S] [--warmup S] [--out FILE] [--label L] [--rep N]
 *             [--ts-dir DIR]</pre>
 *
 * <p>{@code ts-legacy} and {@code ts-modern} are the official TypeScript SDK's clients (1.x in a
 * 2025-11-25 session, the v2 client pinned to 2026-07-28), run by Node from {@code --ts-dir}
 * (default {@code keel-bench/peers/ts-client}, installed there by {@code npm ci}); their
 * "threads" are calls in flight on Node's one event loop.
 *
 * <p>Every client is built the way its documentation shows, with its defaults; one client per
 * process, shared by the callers, as an application would hold it.
 */
public final class ClientBench {

  /** One call, whatever the client: returns the text of the result's first content. */
  interface Caller extends AutoCloseable {
    String echo(String text) throws Exception;

    @Override
    void close();
  }

  private ClientBench() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> o = ResultLines.options(args);
    ResultLines.emit(o, run(o));
  }

  /** Runs one measurement; see the class comment for the options. */
  public static Map<String, Object> run(Map<String, String> o) throws Exception {
    String url = o.get("url");
    String kind = o.getOrDefault("client", "keel-legacy");
    int threads = Integer.parseInt(o.getOrDefault("threads", "1"));
    double duration = Double.parseDouble(o.getOrDefault("duration", "10"));
    double warmup = Double.parseDouble(o.getOrDefault("warmup", "3"));
    if (kind.startsWith("ts-")) {
      return typeScript(o, kind, url, threads, warmup, duration);
    }
    try (Caller caller = open(kind, URI.create(url))) {
      // the first call outside the clock: a session, class loading, the connection pool
      check(caller.echo("hello"));
      measure(caller, threads, warmup);
      Measured m = measure(caller, threads, duration);
      return result(o, kind, threads, round(m.ok / duration),
          round(m.latencies.millisAt(0.50)), round(m.latencies.millisAt(0.99)), m.ok, m.errors,
          m.firstError);
    }
  }

  /** One measurement in the shape the report reads, whichever client ran it. */
  private static Map<String, Object> result(Map<String, String> o, String kind, int threads,
      double perSecond, double p50Ms, double p99Ms, long ok, long errors, String firstError) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("server", kind);
    r.put("scenario", o.getOrDefault("label", "client" + threads));
    r.put("rep", Integer.parseInt(o.getOrDefault("rep", "1")));
    r.put("threads", threads);
    r.put("perSecond", perSecond);
    r.put("p50Ms", p50Ms);
    r.put("p99Ms", p99Ms);
    r.put("ok", ok);
    r.put("errors", errors);
    r.put("firstError", firstError);
    return r;
  }

  /**
   * The TypeScript SDK's clients run in their own Node process ({@code peers/ts-client}, whose
   * {@code npm ci} run.sh does): {@code bench-client.mjs} measures the same way in JavaScript
   * and prints the numbers, which are put in this class's shape. Its stderr goes to a file: the
   * v2 client warns on every call past 1,500 (it adds an abort listener per request to one
   * long-lived signal), and only a failure's last lines are worth reading.
   */
  private static Map<String, Object> typeScript(Map<String, String> o, String kind, String url,
      int threads, double warmup, double duration) throws Exception {
    Path dir = Path.of(o.getOrDefault("ts-dir", "keel-bench/peers/ts-client")).toAbsolutePath();
    Path node = dir.resolve("node_modules/.bin/node");
    if (!Files.isExecutable(node)) {
      throw new IllegalStateException("no " + node + ": run npm ci in " + dir);
    }
    String era = switch (kind) {
      case "ts-legacy" -> "legacy";
      case "ts-modern" -> "modern";
      default -> throw new IllegalArgumentException("unknown client " + kind);
    };
    Path out = Files.createTempFile("ts-client", ".out");
    Path err = Files.createTempFile("ts-client", ".err");
    try {
      Process p = new ProcessBuilder(node.toString(), "bench-client.mjs", era, url,
          String.valueOf(threads), String.valueOf(warmup), String.valueOf(duration))
          .directory(dir.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile())
          .start();
      long limit = (long) (warmup + duration) + 60;
      if (!p.waitFor(limit, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        throw new IllegalStateException(kind + " did not finish within " + limit + " s");
      }
      String[] lines = Files.readString(out, StandardCharsets.UTF_8).strip().split("\n");
      if (p.exitValue() != 0 || lines[lines.length - 1].isEmpty()) {
        List<String> tail = Files.readAllLines(err, StandardCharsets.UTF_8);
        throw new IllegalStateException(kind + " failed (exit " + p.exitValue() + "): "
            + String.join("\n", tail.subList(Math.max(0, tail.size() - 20), tail.size())));
      }
      JsonNode m = McpJson.standard().parse(lines[lines.length - 1]);
      return result(o, kind, threads, m.get("perSecond").asDouble(), m.get("p50Ms").asDouble(),
          m.get("p99Ms").asDouble(), m.get("ok").asLong(), m.get("errors").asLong(),
          m.get("firstError").isNull() ? null : m.get("firstError").asString());
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  private record Measured(long ok, long errors, Latencies latencies, String firstError) {}

  private static Measured measure(Caller caller, int threads, double seconds)
      throws InterruptedException {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    AtomicLong ok = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    List<String> firstError = new ArrayList<>();
    List<Latencies> perThread = new ArrayList<>();
    List<Thread> running = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Latencies stats = new Latencies();
      perThread.add(stats);
      Thread thread = new Thread(() -> {
        while (System.nanoTime() < end) {
          long start = System.nanoTime();
          try {
            check(caller.echo("hello"));
            stats.add(System.nanoTime() - start);
            ok.incrementAndGet();
          } catch (Exception | AssertionError e) {
            errors.incrementAndGet();
            synchronized (firstError) {
              if (firstError.isEmpty()) {
                firstError.add(String.valueOf(e));
              }
            }
          }
        }
      }, "client-bench-" + t);
      running.add(thread);
      thread.start();
    }
    for (Thread thread : running) {
      thread.join();
    }
    Latencies all = new Latencies();
    perThread.forEach(all::addAll);
    return new Measured(ok.get(), errors.get(), all,
        firstError.isEmpty() ? null : firstError.get(0));
  }

  private static void check(String text) {
    if (!"hello".equals(text)) {
      throw new AssertionError("echo answered " + text);
    }
  }

  private static double round(double value) {
    return Math.round(value * 100) / 100.0;
  }

  static Caller open(String kind, URI url) {
    switch (kind.toLowerCase(Locale.ROOT)) {
      case "keel-legacy":
        return keel(url, Era.LEGACY);
      case "keel-modern":
        return keel(url, Era.MODERN);
      case "sdk-legacy":
        return sdkLegacy(url);
      case "sdk-modern":
        return sdkModern(url);
      default:
        throw new IllegalArgumentException("unknown client " + kind);
    }
  }

  private static Caller keel(URI url, Era era) {
    McpClient client = McpClient.builder(StreamableHttpTransport.builder(url).build()).era(era)
        .connect();
    return new Caller() {
      @Override
      public String echo(String text) {
        CallToolResult r = client.callTool("echo",
            McpJson.object().put("text", text), CallOptions.defaults());
        return ((TextContent) r.content().get(0)).text();
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }

  private static Caller sdkLegacy(URI url) {
    String base = url.getScheme() + "://" + url.getAuthority();
    io.modelcontextprotocol.client.McpSyncClient client =
        io.modelcontextprotocol.client.McpClient.sync(HttpClientStreamableHttpTransport
            .builder(base).endpoint(url.getPath()).build()).build();
    client.initialize();
    return new Caller() {
      @Override
      public String echo(String text) {
        McpSchema.CallToolResult r = client.callTool(
            new McpSchema.CallToolRequest("echo", Map.of("text", text)));
        return ((McpSchema.TextContent) r.content().get(0)).text();
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }

  private static Caller sdkModern(URI url) {
    McpSyncClient client = io.modelcontextprotocol.modern.client.McpClient
        .sync(HttpClientMcpTransport.builder(url).build()).build();
    return new Caller() {
      @Override
      public String echo(String text) {
        io.modelcontextprotocol.modern.McpSchema.CallToolResult r =
            client.tool("echo").arguments(Map.of("text", text)).call();
        return ((io.modelcontextprotocol.modern.McpSchema.TextContent) r.content().get(0))
            .text();
      }

      @Override
      public void close() {
        // the SDK's modern sync client holds no session and has no close
      }
    };
  }
}
