package dev.keel.bench.servers;

import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Measures cancellation latency inside the server: from the arrival of the
 * {@code notifications/cancelled} request (stamped by {@link CancelProbeServlet}) to the moment
 * the blocked handler sees its interrupt.
 *
 * <p>Tool {@value #BLOCK} ({@code {"key": string}}) sleeps for a minute unless interrupted;
 * tool {@value #STATS} returns, as JSON text, the latencies measured since the last call and
 * forgets them. A cancellation that arrived before its handler started is counted apart
 * ({@code early}), since its latency would include the wait for a thread, not the interrupt.
 */
final class CancelProbe {

  static final String BLOCK = "bench_block";
  static final String STATS = "bench_cancel_stats";

  private final Map<String, Long> arrivals = new ConcurrentHashMap<>();
  private final Map<String, Long> starts = new ConcurrentHashMap<>();
  private final Map<String, Long> delivered = new ConcurrentHashMap<>();
  private final List<Long> latencies = Collections.synchronizedList(new ArrayList<>());
  private final List<Long> deliveries = Collections.synchronizedList(new ArrayList<>());
  private final AtomicInteger early = new AtomicInteger();

  void arrived(String key, long nanos) {
    arrivals.put(key, nanos);
  }

  void register(McpServer.Builder b) {
    b.tool(Tool.builder(BLOCK).description("Blocks until cancelled")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\"}},"
                + "\"required\":[\"key\"]}").build(),
        (ctx, args) -> {
          String key = args.get("key").asString();
          starts.put(key, System.nanoTime());
          // Runs on the thread that trips the token, right after it interrupts this handler:
          // the part of the latency that is Keel's own work, before the OS schedules the handler.
          ctx.cancellation().onCancel(() -> delivered.put(key, System.nanoTime()));
          // Tells the driver the handler runs, so its cancellation cannot overtake the call.
          ctx.progress(0, null, "blocking");
          try {
            Thread.sleep(60_000);
            return CallToolResult.text("not cancelled");
          } catch (InterruptedException e) {
            interrupted(key, System.nanoTime());
            throw new RequestCancelledException(ctx.cancellation().reason());
          }
        });
    b.tool(Tool.builder(STATS).description("Cancellation latencies so far, then forgets them")
            .inputSchema("{\"type\":\"object\"}").build(),
        (ctx, args) -> CallToolResult.text(drain()));
  }

  private void interrupted(String key, long now) {
    Long arrived = arrivals.remove(key);
    Long started = starts.remove(key);
    Long tripped = delivered.remove(key);
    if (arrived == null || started == null) {
      return;
    }
    if (started > arrived) {
      early.incrementAndGet();
    } else {
      latencies.add(now - arrived);
      if (tripped != null) {
        deliveries.add(tripped - arrived);
      }
    }
  }

  private String drain() {
    long[] sorted = drained(latencies);
    long[] tripped = drained(deliveries);
    int earlyCount = early.getAndSet(0);
    return "{\"count\":" + sorted.length + ",\"early\":" + earlyCount
        + ",\"p50Micros\":" + percentile(sorted, 0.50) / 1000
        + ",\"p99Micros\":" + percentile(sorted, 0.99) / 1000
        + ",\"maxMicros\":" + (sorted.length == 0 ? 0 : sorted[sorted.length - 1] / 1000)
        + ",\"trippedP50Micros\":" + percentile(tripped, 0.50) / 1000
        + ",\"trippedP99Micros\":" + percentile(tripped, 0.99) / 1000 + "}";
  }

  private static long[] drained(List<Long> list) {
    synchronized (list) {
      long[] sorted = list.stream().mapToLong(Long::longValue).sorted().toArray();
      list.clear();
      return sorted;
    }
  }

  static long percentile(long[] sorted, double q) {
    if (sorted.length == 0) {
      return 0;
    }
    int index = (int) Math.ceil(q * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }
}
