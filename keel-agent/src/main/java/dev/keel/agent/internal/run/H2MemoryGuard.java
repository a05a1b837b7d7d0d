package dev.keel.agent.internal.run;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops embedded H2 statements before they fill the agent's heap. An in-memory H2 database
 * keeps every intermediate result in the agent's own memory (a sort, a DISTINCT, a recursive
 * query's rows: it never spills to disk), and when H2 runs out of memory inside a statement it
 * closes the whole database for everyone. The statement timeout bounds such a statement in
 * time only; this bounds it in memory.
 *
 * <p>While at least one H2 statement runs, a thread looks at the heap's long-lived generation
 * every {@value #POLL_MILLIS} ms. Past {@value #THRESHOLD_PERCENT}% of the heap it asks for a
 * collection (at most once a second: the generation also holds garbage that only a collection
 * tells apart) and, when it is still past, stops the running H2 statement that allocated the
 * most (see {@link #victims}; statements run on platform threads, whose allocation the JVM
 * counts, see {@code QueryRunner.H2_WORKERS}). What grows one allocation at a time is caught;
 * a single allocation larger than what is left (a value that doubles in each step of a
 * recursive query) is not, which is why the statement check also refuses functions that build
 * values of a size given as an argument.
 */
final class H2MemoryGuard {

  static final int POLL_MILLIS = 10;
  static final int THRESHOLD_PERCENT = 60;
  static final int EMERGENCY_PERCENT = 85;

  private static final Logger LOG = LoggerFactory.getLogger(H2MemoryGuard.class);

  private static final Set<Watch> RUNNING = ConcurrentHashMap.newKeySet();
  private static final List<MemoryPoolMXBean> LONG_LIVED = longLived();
  private static final java.lang.management.ThreadMXBean THREADS =
      ManagementFactory.getThreadMXBean();
  private static volatile Thread thread;
  private static long lastCollection;

  private H2MemoryGuard() {}

  /** One running statement; {@code stop} runs at most once, on the guard's thread. */
  static final class Watch implements AutoCloseable, Candidate {
    private final Runnable stop;
    private final long started = System.nanoTime();
    private final long thread = Thread.currentThread().getId();
    private final long allocatedAtStart = allocated(thread);
    private volatile boolean fired;

    private Watch(Runnable stop) {
      this.stop = stop;
    }

    /** Returns true when the statement was stopped for memory. */
    @Override
    public boolean fired() {
      return fired;
    }

    @Override
    public long started() {
      return started;
    }

    /** What the statement's thread allocated since it started, or -1 when unknown. */
    @Override
    public long allocatedSince() {
      long now = allocated(thread);
      return now < 0 || allocatedAtStart < 0 ? -1 : now - allocatedAtStart;
    }

    private void fire() {
      if (!fired) {
        fired = true;
        stop.run();
      }
    }

    @Override
    public void close() {
      RUNNING.remove(this);
    }
  }

  /**
   * Watches the statement about to run on the calling thread from now until the watch is
   * closed.
   */
  static Watch watch(Runnable stop) {
    Watch w = new Watch(stop);
    RUNNING.add(w);
    Thread t = thread;
    if (t == null) {
      t = start();
    }
    LockSupport.unpark(t);
    return w;
  }

  private static synchronized Thread start() {
    if (thread == null) {
      Thread t = new Thread(H2MemoryGuard::loop, "keel-agent-h2-memory");
      t.setDaemon(true);
      t.start();
      thread = t;
    }
    return thread;
  }

  private static void loop() {
    while (true) {
      if (RUNNING.isEmpty()) {
        LockSupport.park();
        continue;
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MILLIS));
      try {
        check();
      } catch (RuntimeException e) {
        LOG.debug("the memory check failed", e);
      }
    }
  }

  /**
   * Past the threshold, stops what {@link #victims} picks. Its pick is made apart from the heap
   * readings so that who is stopped can be tested without filling a heap.
   */
  private static void check() {
    long max = Runtime.getRuntime().maxMemory();
    long used = longLivedBytes();
    if (used <= max / 100 * THRESHOLD_PERCENT) {
      return;
    }
    long now = System.nanoTime();
    if (now - lastCollection > TimeUnit.SECONDS.toNanos(1)) {
      lastCollection = now;
      System.gc();
      used = longLivedBytes();
      if (used <= max / 100 * THRESHOLD_PERCENT) {
        return;
      }
    }
    boolean emergency = used > max / 100 * EMERGENCY_PERCENT;
    List<Watch> victims = victims(List.copyOf(RUNNING), emergency, max);
    if (!victims.isEmpty()) {
      LOG.warn("the heap is {}% full while embedded H2 statements run; stopping {} of {}",
          used * 100 / max, victims.size(), RUNNING.size());
    }
    victims.forEach(Watch::fire);
  }

  /** What the guard knows of a running statement when it picks which to stop. */
  interface Candidate {
    /** True when it was stopped already and is winding down. */
    boolean fired();

    /** The bytes its thread allocated since it started, or -1 when the JVM cannot tell. */
    long allocatedSince();

    /** When it started, in {@link System#nanoTime()}. */
    long started();
  }

  /**
   * The statements to stop once the heap is past the threshold. Normally one: the one that
   * allocated the most (the oldest where the JVM cannot tell), and none while a stopped one
   * still winds down, so a quick statement of another principal is not stopped for what a
   * hostile one holds. Past {@value #EMERGENCY_PERCENT}% every statement that allocated at
   * least a sixteenth of the heap (or whose allocation is unknown): a statement that allocated
   * less cannot be what fills it, and stopping it would fail an innocent caller for nothing.
   */
  static <C extends Candidate> List<C> victims(List<C> running, boolean emergency,
      long maxHeap) {
    C heaviest = null;
    boolean windingDown = false;
    List<C> heavy = new ArrayList<>();
    for (C c : running) {
      if (c.fired()) {
        windingDown = true;
        continue;
      }
      long allocated = c.allocatedSince();
      if (allocated < 0 || allocated >= maxHeap / 16) {
        heavy.add(c);
      }
      if (heaviest == null || heavier(c, heaviest)) {
        heaviest = c;
      }
    }
    if (emergency && !heavy.isEmpty()) {
      return heavy;
    }
    return windingDown || heaviest == null ? List.of() : List.of(heaviest);
  }

  private static boolean heavier(Candidate a, Candidate b) {
    long x = a.allocatedSince();
    long y = b.allocatedSince();
    if (x >= 0 && y >= 0) {
      return x > y;
    }
    return a.started() < b.started();
  }

  private static long allocated(long thread) {
    if (THREADS instanceof com.sun.management.ThreadMXBean t
        && t.isThreadAllocatedMemorySupported() && t.isThreadAllocatedMemoryEnabled()) {
      return t.getThreadAllocatedBytes(thread);
    }
    return -1;
  }

  /** The bytes the heap's long-lived pools use: an old generation, or the one heap there is. */
  private static long longLivedBytes() {
    if (LONG_LIVED.isEmpty()) {
      Runtime r = Runtime.getRuntime();
      return r.totalMemory() - r.freeMemory();
    }
    long used = 0;
    for (MemoryPoolMXBean pool : LONG_LIVED) {
      used += pool.getUsage().getUsed();
    }
    return used;
  }

  private static List<MemoryPoolMXBean> longLived() {
    return ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP && p.isValid())
        .filter(p -> {
          String name = p.getName().toLowerCase(Locale.ROOT);
          return !name.contains("eden") && !name.contains("survivor")
              && !name.contains("young");
        })
        .toList();
  }
}
