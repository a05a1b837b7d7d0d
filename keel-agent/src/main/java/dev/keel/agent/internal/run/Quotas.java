package dev.keel.agent.internal.run;

import dev.keel.agent.internal.sql.QueryRefusedException;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Per-principal quotas over the last minute: how many statements a principal may start, and
 * how many rows its results may carry. A sliding window, not a bucket that refills on the
 * minute: a burst at the end of one minute and another at the start of the next is still one
 * burst. A principal past a quota is refused before its statement is even parsed, with the time
 * until the window has room again; rows already read are never taken back, so the row quota
 * refuses the next statement, not the one that crossed it.
 */
final class Quotas {

  static final long WINDOW_NANOS = 60_000_000_000L;

  private final int queriesPerMinute;
  private final long rowsPerMinute;
  private final LongSupplier clock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();
  private final AtomicLong lastSweep;

  /**
   * Creates quotas; 0 turns one off.
   *
   * @param clock nanoseconds, as {@link System#nanoTime}
   */
  Quotas(int queriesPerMinute, long rowsPerMinute, LongSupplier clock) {
    this.queriesPerMinute = queriesPerMinute;
    this.rowsPerMinute = rowsPerMinute;
    this.clock = clock;
    this.lastSweep = new AtomicLong(clock.getAsLong());
  }

  boolean enabled() {
    return queriesPerMinute > 0 || rowsPerMinute > 0;
  }

  /**
   * Counts one statement of {@code who}.
   *
   * @throws QueryRefusedException when a quota of the last minute is spent
   */
  void start(String who) {
    if (!enabled()) {
      return;
    }
    long now = clock.getAsLong();
    long swept = lastSweep.get();
    // at most one sweep a minute, by whichever caller comes first: principals that went away
    // leave no window behind
    if (now - swept >= WINDOW_NANOS && lastSweep.compareAndSet(swept, now)) {
      sweep();
    }
    Window w = windows.computeIfAbsent(who, k -> new Window());
    synchronized (w) {
      w.expire(now);
      if (queriesPerMinute > 0 && w.starts.size() >= queriesPerMinute) {
        throw new QueryRefusedException("Quota reached: you may run " + queriesPerMinute
            + " statements a minute; try again in " + seconds(w.starts.peekFirst() + WINDOW_NANOS
            - now) + " s");
      }
      if (rowsPerMinute > 0 && w.rowTotal >= rowsPerMinute) {
        throw new QueryRefusedException("Quota reached: your results may carry " + rowsPerMinute
            + " rows a minute; try again in " + seconds(w.rowTimes.peekFirst() + WINDOW_NANOS
            - now) + " s");
      }
      w.starts.addLast(now);
    }
  }

  /** Counts rows a result of {@code who} carried. */
  void rows(String who, long rows) {
    if (rowsPerMinute <= 0 || rows <= 0) {
      return;
    }
    long now = clock.getAsLong();
    Window w = windows.computeIfAbsent(who, k -> new Window());
    synchronized (w) {
      w.expire(now);
      w.rowTimes.addLast(now);
      w.rowCounts.addLast(rows);
      w.rowTotal += rows;
    }
  }

  /** Drops windows that are empty, so principals that went away hold nothing. */
  void sweep() {
    long now = clock.getAsLong();
    windows.entrySet().removeIf(e -> {
      synchronized (e.getValue()) {
        e.getValue().expire(now);
        return e.getValue().starts.isEmpty() && e.getValue().rowTimes.isEmpty();
      }
    });
  }

  int principals() {
    return windows.size();
  }

  private static long seconds(long nanos) {
    return Math.max(1, (nanos + 999_999_999L) / 1_000_000_000L);
  }

  private static final class Window {
    final ArrayDeque<Long> starts = new ArrayDeque<>();
    final ArrayDeque<Long> rowTimes = new ArrayDeque<>();
    final ArrayDeque<Long> rowCounts = new ArrayDeque<>();
    long rowTotal;

    void expire(long now) {
      while (!starts.isEmpty() && now - starts.peekFirst() >= WINDOW_NANOS) {
        starts.removeFirst();
      }
      while (!rowTimes.isEmpty() && now - rowTimes.peekFirst() >= WINDOW_NANOS) {
        rowTimes.removeFirst();
        rowTotal -= rowCounts.removeFirst();
      }
    }
  }
}
