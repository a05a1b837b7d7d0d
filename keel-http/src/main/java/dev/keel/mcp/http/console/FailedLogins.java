package dev.keel.mcp.http.console;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Slows down guessing: past {@link #MAX} wrong secrets (form or bearer) from one address in a
 * minute, every credential from that address is refused for the rest of the minute, right
 * ones included, so a guesser learns nothing even when it hits. Per address, so nobody can
 * lock the operators out from elsewhere; secrets of at least 16 characters keep guessing from
 * many addresses hopeless too. Bounded: the least recently seen addresses are forgotten.
 */
final class FailedLogins {

  /** Wrong secrets allowed per address and minute. */
  static final int MAX = 20;
  /** The most addresses remembered. */
  static final int ADDRESSES = 10_000;
  private static final long WINDOW_NANOS = 60_000_000_000L;

  private final Map<String, Deque<Long>> byAddress =
      new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Deque<Long>> eldest) {
          return size() > ADDRESSES;
        }
      };

  /** Returns true while {@code address} may not present a credential. */
  synchronized boolean locked(String address) {
    Deque<Long> failures = byAddress.get(address);
    return failures != null && prune(failures, System.nanoTime()) >= MAX;
  }

  synchronized void failed(String address) {
    long now = System.nanoTime();
    Deque<Long> failures = byAddress.computeIfAbsent(address, a -> new ArrayDeque<>());
    if (prune(failures, now) < MAX) {
      failures.addLast(now);
    }
  }

  /** Seconds until the oldest failure of {@code address} leaves the window. */
  synchronized long retryAfterSeconds(String address) {
    Deque<Long> failures = byAddress.get(address);
    Long oldest = failures == null ? null : failures.peekFirst();
    return oldest == null ? 1
        : Math.max(1, (WINDOW_NANOS - (System.nanoTime() - oldest)) / 1_000_000_000L + 1);
  }

  private static int prune(Deque<Long> failures, long now) {
    while (!failures.isEmpty() && now - failures.peekFirst() > WINDOW_NANOS) {
      failures.removeFirst();
    }
    return failures.size();
  }
}
