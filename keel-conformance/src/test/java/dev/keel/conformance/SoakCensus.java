package dev.keel.conformance;

import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.McpServlet;
import dev.keel.mcp.http.spi.EventStore;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ServerMetrics;
import dev.keel.mcp.server.ServerOperations;
import dev.keel.mcp.server.transport.HandlerThreads;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything a server holds for its clients, counted: the soak's pass condition is that each
 * count is back to its idle value once the traffic stops, and that the heap after a GC is where
 * it was.
 */
final class SoakCensus {

  /**
   * Thread pools that are bounded by construction and shrink on their own clock (Jetty's pool
   * evicts one idle thread per idle timeout, the common pool is sized by the cores): they are
   * reported, not compared, since a short idle phase cannot wait them out.
   */
  private static final List<String> SELF_BOUNDED_POOLS = List.of("keel-jetty", "ForkJoinPool");

  /**
   * Keel's own handler pools on Java 17 (virtual threads from 21 on), each at most {@link
   * HandlerThreads#PLATFORM_POOL_SIZE} threads that end after 30 s idle. A short run checks
   * only that bound, so that it need not wait them out; a long run, whose idle phase outlasts
   * them, compares them like every other thread.
   */
  static final List<String> HANDLER_POOLS = List.of("keel-handler", "keel-http", "keel-task");

  /**
   * The JDK HttpClient's threads of the soak's own clients: on Java 17 a client cannot end them
   * (its HttpClient has no close), so they end 60 s idle or at a collection. A short run leaves
   * them out as it does the handler pools; a long run compares them.
   */
  static final List<String> JDK_CLIENT_POOLS =
      List.of("HttpClient-N-Worker", "HttpClient-N-SelectorManager");

  private final McpServer server;
  private final McpServlet servlet;
  private final Counting events;
  private final Method pendingTimers;

  private final boolean comparePools;

  /**
   * @param comparePools whether Keel's handler pools are compared with their idle size (a long
   *     run) or only held to their bound (a short one)
   */
  SoakCensus(McpServer server, McpHttpServer http, Counting events, boolean comparePools) {
    this.comparePools = comparePools;
    this.server = server;
    this.servlet = http.servlet();
    this.events = events;
    try {
      // package-private on purpose (not API): the timer queue is a test's concern, not an
      // operator's
      pendingTimers = server.getClass().getDeclaredMethod("pendingTimers");
      pendingTimers.setAccessible(true);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("the server has no pendingTimers()", e);
    }
  }

  /** One reading of every count. */
  record Reading(Map<String, Long> counts, Map<String, Integer> threadsByKind,
      long heapAfterGc, boolean comparePools) {

    int comparedThreads() {
      int n = 0;
      for (Map.Entry<String, Integer> e : threadsByKind.entrySet()) {
        if (SELF_BOUNDED_POOLS.stream().noneMatch(e.getKey()::startsWith)
            && (comparePools || !HANDLER_POOLS.contains(e.getKey())
                && !JDK_CLIENT_POOLS.contains(e.getKey()))) {
          n += e.getValue();
        }
      }
      return n;
    }

    @Override
    public String toString() {
      return counts + ", threads " + comparedThreads() + " " + threadsByKind
          + (heapAfterGc >= 0 ? ", heap after GC " + (heapAfterGc / (1024 * 1024)) + " MiB" : "");
    }
  }

  /** Reads the counts without a GC (cheap enough to sample while traffic runs). */
  Reading counts() {
    return read(false);
  }

  /** Reads the counts and the heap used after a full collection. */
  Reading withHeap() {
    return read(true);
  }

  private Reading read(boolean heap) {
    ServerMetrics m = server.metrics();
    ServerOperations ops = server.operations();
    Map<String, Long> c = new LinkedHashMap<>();
    c.put("sessions", (long) m.sessions());
    c.put("ownerBindings", (long) m.ownerBindings());
    c.put("inFlightRequests", (long) m.inFlightRequests());
    c.put("operatorRequests", (long) ops.requests().size());
    c.put("listeningStreams", (long) m.listeningStreams());
    c.put("runningTasks", (long) m.runningTasks());
    c.put("retainedTasks", (long) ops.tasks().size());
    c.put("subscriptions", (long) ops.subscriptions().size());
    c.put("httpStreams", (long) servlet.openStreams());
    c.put("httpListeningStreams", (long) servlet.openListeningStreams());
    c.put("httpTrackedSessions", (long) servlet.trackedSessions());
    c.put("bufferedBodyBytes", servlet.bufferedBodyBytes());
    c.put("eventLogs", (long) events.sessions());
    c.put("timers", (long) timers());
    Map<String, Integer> threads = new TreeMap<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive()) {
        threads.merge(kind(t.getName()), 1, Integer::sum);
      }
    }
    return new Reading(c, threads, heap ? heapAfterGc() : -1, comparePools);
  }

  private int timers() {
    try {
      return (Integer) pendingTimers.invoke(server);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A thread's name without its number: pools name their threads {@code name-N}. */
  static String kind(String name) {
    return name.replaceAll("[-_ ]?\\d+$", "").replaceAll("-\\d+-", "-N-");
  }

  static long heapAfterGc() {
    long used = Long.MAX_VALUE;
    // the smallest of a few collections: one GC may leave garbage a concurrent phase still holds
    for (int i = 0; i < 4; i++) {
      System.gc();
      try {
        Thread.sleep(150);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  /**
   * Returns what is not back to idle: each count above its idle value, threads beyond the idle
   * ones (plus {@code threadSlack}), and heap growth beyond {@code heapBound} bytes.
   */
  static List<String> leftovers(Reading idle, Reading after, long heapBound, int threadSlack) {
    List<String> left = new ArrayList<>();
    for (Map.Entry<String, Long> e : after.counts().entrySet()) {
      long before = idle.counts().getOrDefault(e.getKey(), 0L);
      if (e.getValue() > before) {
        left.add(e.getKey() + " " + e.getValue() + " (idle " + before + ")");
      }
    }
    if (after.comparedThreads() > idle.comparedThreads() + threadSlack) {
      Map<String, Integer> grown = new TreeMap<>();
      after.threadsByKind().forEach((kind, n) -> {
        int was = idle.threadsByKind().getOrDefault(kind, 0);
        if (n > was) {
          grown.put(kind, n - was);
        }
      });
      left.add("threads " + after.comparedThreads() + " (idle " + idle.comparedThreads()
          + ", grown " + grown + ")");
    }
    for (String pool : HANDLER_POOLS) {
      int n = after.threadsByKind().getOrDefault(pool, 0);
      if (n > HandlerThreads.PLATFORM_POOL_SIZE) {
        left.add(pool + " threads " + n + " (bound " + HandlerThreads.PLATFORM_POOL_SIZE + ")");
      }
    }
    if (after.heapAfterGc() - idle.heapAfterGc() > heapBound) {
      left.add("heap after GC " + mib(after.heapAfterGc()) + " MiB (idle "
          + mib(idle.heapAfterGc()) + " MiB, bound +" + mib(heapBound) + " MiB)");
    }
    return left;
  }

  /** The largest value each count reached over {@code samples}. */
  static Map<String, Long> peaks(List<Reading> samples) {
    Map<String, Long> peak = new LinkedHashMap<>();
    for (Reading r : samples) {
      r.counts().forEach((k, v) -> peak.merge(k, v, Math::max));
      peak.merge("threads", (long) r.comparedThreads(), Math::max);
    }
    return peak;
  }

  /**
   * Why each JDK HttpClient selector thread still runs: a selector ends once its client is
   * unreachable and has nothing pending, so each is named with whether its client is still
   * reachable and the pending counts that are not zero. Read from the JDK's internals (the
   * module opens {@code jdk.internal.net.http} to its tests for this alone); a JDK whose
   * internals differ is reported as not readable, never failed on.
   */
  static List<String> clientSelectors() {
    List<String> out = new ArrayList<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && kind(t.getName()).equals("HttpClient-N-SelectorManager")) {
        out.add(t.getName() + ": " + selectorOwner(t));
      }
    }
    out.sort(null);
    return out;
  }

  private static String selectorOwner(Thread selector) {
    try {
      Field ownerField = selector.getClass().getDeclaredField("owner");
      ownerField.setAccessible(true);
      Object owner = ownerField.get(selector);
      Field facadeField = owner.getClass().getDeclaredField("facadeRef");
      facadeField.setAccessible(true);
      boolean reachable = ((Reference<?>) facadeField.get(owner)).get() != null;
      Map<String, Long> pending = new TreeMap<>();
      for (Field f : owner.getClass().getDeclaredFields()) {
        if (f.getName().startsWith("pending") && f.getType() == AtomicLong.class) {
          f.setAccessible(true);
          long n = ((AtomicLong) f.get(owner)).get();
          if (n != 0) {
            pending.put(f.getName(), n);
          }
        }
      }
      return "client " + (reachable ? "still reachable" : "collected") + ", pending " + pending;
    } catch (ReflectiveOperationException | RuntimeException e) {
      return "not readable (" + e + ")";
    }
  }

  private static long mib(long bytes) {
    return bytes / (1024 * 1024);
  }

  /**
   * The server's event store, counting the sessions it holds events for: an event log that
   * outlives its session is a leak the servlet's own counts cannot show.
   */
  static final class Counting implements EventStore {

    private final EventStore inner = EventStore.inMemory(1000, 4L * 1024 * 1024);
    private final Set<String> sessions = ConcurrentHashMap.newKeySet();

    int sessions() {
      return sessions.size();
    }

    @Override
    public String append(String sessionId, String streamId, byte[] data) {
      if (sessionId != null) {
        sessions.add(sessionId);
      }
      return inner.append(sessionId, streamId, data);
    }

    @Override
    public Optional<String> streamOf(String sessionId, String eventId) {
      return inner.streamOf(sessionId, eventId);
    }

    @Override
    public List<StoredEvent> after(String sessionId, String eventId) {
      return inner.after(sessionId, eventId);
    }

    @Override
    public void forget(String sessionId) {
      inner.forget(sessionId);
      if (sessionId != null) {
        sessions.remove(sessionId);
      }
    }
  }
}
