package dev.keel.mcp.http.internal;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Ticks every open stream at a fixed interval. The timer thread never writes: it hands each
 * tick to the handler executor, so a slow client cannot stall the others.
 */
final class KeepAlive implements AutoCloseable {

  /** Something that sends a keep-alive, or decides it is due for one. */
  interface Tickable {
    void tick();

    /**
     * Whether a tick could do anything yet. Checked on the timer thread without locks, so a
     * stale answer only delays a tick by one interval; it spares a handler thread for every
     * short request that is in flight when the timer fires.
     */
    default boolean due(long nowNanos) {
      return true;
    }
  }

  private final Set<Tickable> streams = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService timer;

  KeepAlive(Duration interval, Executor executor) {
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "keel-keepalive");
      t.setDaemon(true);
      return t;
    });
    long millis = Math.max(10, interval.toMillis());
    timer.scheduleAtFixedRate(() -> {
      long now = System.nanoTime();
      for (Tickable stream : streams) {
        if (!stream.due(now)) {
          continue;
        }
        try {
          executor.execute(stream::tick);
        } catch (RuntimeException e) {
          // executor shutting down: nothing to keep alive
        }
      }
    }, millis, millis, TimeUnit.MILLISECONDS);
  }

  void add(Tickable stream) {
    streams.add(stream);
  }

  void remove(Tickable stream) {
    streams.remove(stream);
  }

  int size() {
    return streams.size();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    streams.clear();
  }
}
