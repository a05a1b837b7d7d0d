package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The soak: mixed traffic in both eras against one server (calls, progress, cancels,
 * elicitation answered and abandoned, tasks completed and cancelled, subscriptions, calls
 * dropped mid-stream, resumed streams, DELETEs, sessions left to expire, bad input), then idle;
 * afterwards every count in {@link SoakCensus} is back to its idle value and the heap after a GC
 * is within {@link #HEAP_BOUND} of where it was. The same check must catch a leak planted on
 * purpose.
 *
 * <p>In the test command it runs {@code keel.soak.duration} (default 20 s) of traffic and waits
 * at most {@code keel.soak.idle} (default 75 s) for the counts to settle. The long run is
 * {@code -Dkeel.soak.duration=30m -Dkeel.soak.idle=10m} (docs/reliability.md), which waits out
 * the whole idle time before it counts, and so also compares Java 17's handler pools, which a
 * short run holds only to their bound ({@link SoakCensus#HANDLER_POOLS}).
 */
class SoakTest {

  /** Heap growth allowed between the warmed-up idle reading and the final one. */
  static final long HEAP_BOUND = 16L * 1024 * 1024;
  /** JDK threads that may appear on their own (an attach listener, a cleaner). */
  static final int THREAD_SLACK = 2;
  private static final int WORKERS = 8;

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void close() throws Exception {
    for (AutoCloseable c : open) {
      c.close();
    }
  }

  @Test
  void mixedTrafficInBothErasLeavesEveryRegistryIdleAndTheHeapFlat() throws Exception {
    Duration duration = Duration.parse("PT" + System.getProperty("keel.soak.duration", "20s"));
    Duration idle = Duration.parse("PT" + System.getProperty("keel.soak.idle", "75s"));
    boolean longRun = duration.compareTo(Duration.ofMinutes(5)) > 0;
    Soak soak = start(longRun, b -> { });

    SoakCensus.Reading before = soak.census.counts();
    // warm up: classes loaded, pools and caches made, before the idle reading that counts
    new SoakTraffic(soak.http.endpoint(), 7, null).run(4, Duration.ofSeconds(5));
    SoakCensus.Reading idleBefore = settle(soak.census, before, Duration.ofSeconds(30), false);
    SoakCensus.Reading warm = soak.census.withHeap();

    List<SoakCensus.Reading> samples = new CopyOnWriteArrayList<>();
    Thread sampler = sampler(soak.census, samples);
    SoakTraffic traffic = new SoakTraffic(soak.http.endpoint(), 42, null);
    long started = System.nanoTime();
    traffic.run(WORKERS, duration);
    long ran = System.nanoTime() - started;
    sampler.interrupt();
    sampler.join();

    long idleStarted = System.nanoTime();
    settle(soak.census, warm, idle, longRun);
    SoakCensus.Reading after = soak.census.withHeap();
    long settled = System.nanoTime() - idleStarted;
    List<String> left = SoakCensus.leftovers(warm, after, HEAP_BOUND, THREAD_SLACK);
    List<String> selectors = SoakCensus.clientSelectors();
    String dump = longRun && !left.isEmpty() ? dumpHeap() : "none";

    String report = "soak on " + System.getProperty("java.version") + ": "
        + (ran / 1_000_000_000) + " s of traffic, " + WORKERS + " workers; idle "
        + (settled / 1_000_000) + " ms to settle\n"
        + "actions " + traffic.done() + "\n"
        + "before  " + before + "\n"
        + "warm    " + warm + " (after warm-up, settled: " + idleBefore.counts() + ")\n"
        + "peak    " + SoakCensus.peaks(samples) + " over " + samples.size() + " samples\n"
        + "after   " + after + "\n"
        + "left    " + left + "\n"
        + "client selector threads " + selectors + "\n"
        + "heap dump " + dump + "\n"
        + "failures " + traffic.failures().size() + " " + traffic.failures().stream().limit(10)
            .toList() + "\n"
        + "open finding (pooled connection closed under a call) " + traffic.openFinding().size()
        + " " + traffic.openFinding().stream().limit(5).toList();
    System.out.println(report);
    write("soak-report.txt", report);

    assertThat(traffic.failures()).as("actions that did not end as they must").isEmpty();
    assertThat(traffic.done().values().stream().mapToLong(Long::longValue).sum())
        .as("actions done").isGreaterThan(duration.toSeconds() * 10);
    assertThat(SoakCensus.peaks(samples).get("sessions")).as("sessions at the peak")
        .isPositive();
    assertThat(left).as("what the traffic left behind").isEmpty();
  }

  /**
   * A tool that hoards memory, starts threads that never end and sometimes never returns:
   * the check that passes the soak must fail on it, naming each leak.
   */
  @Test
  void aDeliberateLeakFailsTheSameCheck() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    List<byte[]> hoard = new CopyOnWriteArrayList<>();
    AtomicInteger calls = new AtomicInteger();
    open.add(hoard::clear);
    Soak soak = start(false, b -> b.tool(Tool.builder("leaky").build(), (ctx, args) -> {
      int n = calls.incrementAndGet();
      if (hoard.size() < 100) {
        hoard.add(new byte[1024 * 1024]);
      }
      if (n % 10 == 0) {
        Thread t = new Thread(() -> awaitIgnoringInterrupts(release), "soak-leaked-thread-" + n);
        t.setDaemon(true);
        t.start();
      }
      if (n % 15 == 0) {
        awaitIgnoringInterrupts(release);
      }
      return CallToolResult.text("leaked");
    }));
    // first: stuck handlers return before the server stops
    open.add(0, release::countDown);
    SoakCensus.Reading before = soak.census.counts();
    new SoakTraffic(soak.http.endpoint(), 7, null).run(4, Duration.ofSeconds(3));
    settle(soak.census, before, Duration.ofSeconds(30), false);
    SoakCensus.Reading warm = soak.census.withHeap();

    Consumer<dev.keel.mcp.client.McpClient> leak = client -> {
      try {
        client.callTool("leaky", null, dev.keel.mcp.client.CallOptions.defaults()
            .withTimeout(Duration.ofMillis(500)));
      } catch (RequestTimeoutException stuck) {
        // one in fifteen never returns: the client gives up, the server's handler stays
      }
    };
    SoakTraffic traffic = new SoakTraffic(soak.http.endpoint(), 42, leak);
    traffic.run(4, Duration.ofSeconds(6));
    settle(soak.census, warm, Duration.ofSeconds(15), false);
    SoakCensus.Reading after = soak.census.withHeap();
    List<String> left = SoakCensus.leftovers(warm, after, HEAP_BOUND, THREAD_SLACK);
    String report = "deliberate leak: " + calls.get() + " leaky calls; left " + left;
    System.out.println(report);
    write("soak-leak-report.txt", report);

    assertThat(calls.get()).as("leaky calls").isGreaterThanOrEqualTo(30);
    assertThat(left).anyMatch(s -> s.startsWith("inFlightRequests"))
        .anyMatch(s -> s.startsWith("threads") && s.contains("soak-leaked-thread"))
        .anyMatch(s -> s.startsWith("heap after GC"));
  }

  private record Soak(McpServer server, McpHttpServer http, SoakCensus census) {}

  private Soak start(boolean comparePools, Consumer<McpServer.Builder> adjust) {
    SoakCensus.Counting events = new SoakCensus.Counting();
    McpServer server = FixtureServer.create(b -> {
      // short enough that sessions left alone and finished tasks go within the idle phase
      b.sessionIdleTimeout(Duration.ofSeconds(3))
          .taskTtl(Duration.ofSeconds(3), Duration.ofSeconds(10));
      adjust.accept(b);
    });
    McpHttpServer http = McpHttpServer.builder(server).port(0)
        .servlet(s -> s.eventStore(events).maxBodyBytes(1_000_000)).start();
    open.add(0, server::close);
    open.add(0, http::close);
    return new Soak(server, http, new SoakCensus(server, http, events, comparePools));
  }

  /**
   * Waits until nothing is left over against {@code idle} (heap aside), at most {@code within};
   * a long run waits all of it, as an operator's quiet night would.
   */
  private static SoakCensus.Reading settle(SoakCensus census, SoakCensus.Reading idle,
      Duration within, boolean waitAll) throws InterruptedException {
    long end = System.nanoTime() + within.toNanos();
    SoakCensus.Reading now = census.counts();
    while (System.nanoTime() < end) {
      if (!waitAll && SoakCensus.leftovers(idle, now, Long.MAX_VALUE, THREAD_SLACK).isEmpty()) {
        break;
      }
      Thread.sleep(500);
      // collections let the JDK's HTTP clients of closed Keel clients end their threads
      System.gc();
      now = census.counts();
    }
    return now;
  }

  private static Thread sampler(SoakCensus census, List<SoakCensus.Reading> samples) {
    Thread t = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        samples.add(census.counts());
        try {
          Thread.sleep(1_000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "soak-sampler");
    t.start();
    return t;
  }

  private static void awaitIgnoringInterrupts(CountDownLatch latch) {
    while (true) {
      try {
        latch.await();
        return;
      } catch (InterruptedException ignored) {
        // a leak does not listen to cancellation: that is what makes it one
      }
    }
  }

  /** A long run that leaves something writes the heap for a reader to see who holds it. */
  private static String dumpHeap() {
    Path file = Path.of("target", System.getProperty("java.specification.version")
        + "-soak-leftovers.hprof").toAbsolutePath();
    try {
      Files.createDirectories(file.getParent());
      Files.deleteIfExists(file);
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .dumpHeap(file.toString(), true);
      return file.toString();
    } catch (IOException | RuntimeException e) {
      return "failed: " + e;
    }
  }

  private static void write(String name, String report) throws IOException {
    Path dir = Path.of("target");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(System.getProperty("java.specification.version") + "-" + name),
        report + "\n", StandardCharsets.UTF_8);
  }
}
