package dev.keel.agent.internal.run;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * How much statement time each principal has left within a sliding minute. A statement
 * reserves what it may use (the statement timeout, or less when less is left) before it
 * starts, so statements running at once share what is left instead of each getting all of it;
 * when it ends the reservation becomes the time it really took, which counts for a minute.
 * {@code pg_sleep} and friends are allowed by the check because this bounds them.
 */
public final class TimeBudget {

  /** The window the budget is measured over. */
  static final long WINDOW_NANOS = Duration.ofMinutes(1).toNanos();

  /** Less than this left is nothing left: a statement could not do anything useful in it. */
  static final long MIN_GRANT_NANOS = Duration.ofMillis(50).toNanos();

  private final long budgetNanos;
  private final LongSupplier clock;
  private final Map<String, Account> accounts = new HashMap<>();

  /** Creates a budget of {@code perMinute} statement time per principal. */
  public TimeBudget(Duration perMinute) {
    this(perMinute, System::nanoTime);
  }

  TimeBudget(Duration perMinute, LongSupplier clock) {
    this.budgetNanos = perMinute.toNanos();
    this.clock = clock;
  }

  /** One principal's spending: finished statements (end, nanos) and running reservations. */
  private static final class Account {
    final Deque<long[]> spent = new ArrayDeque<>();
    long reserved;

    long used(long now) {
      while (!spent.isEmpty() && spent.peekFirst()[0] <= now - WINDOW_NANOS) {
        spent.removeFirst();
      }
      long sum = reserved;
      for (long[] s : spent) {
        sum += s[1];
      }
      return sum;
    }
  }

  /** Statement time granted to one statement; close it when the statement has ended. */
  public final class Grant implements AutoCloseable {
    private final String who;
    private final long nanos;
    private final long started;
    private final boolean limited;
    private boolean closed;

    private Grant(String who, long nanos, long started, boolean limited) {
      this.who = who;
      this.nanos = nanos;
      this.started = started;
      this.limited = limited;
    }

    /** Returns how long the statement may run. */
    public Duration timeout() {
      return Duration.ofNanos(nanos);
    }

    /** Returns true when the budget, not the statement timeout, set {@link #timeout()}. */
    public boolean limitedByBudget() {
      return limited;
    }

    /** Returns the message for a statement stopped because the budget ran out. */
    public String exhausted() {
      return "The statement was stopped: it used up your statement time (" + describe()
          + "); try again in a minute";
    }

    @Override
    public void close() {
      synchronized (TimeBudget.this) {
        if (closed) {
          return;
        }
        closed = true;
        long now = clock.getAsLong();
        Account a = accounts.get(who);
        a.reserved -= nanos;
        a.spent.addLast(new long[] {now, Math.max(0, now - started)});
        if (a.used(now) == 0) {
          accounts.remove(who);
        }
      }
    }
  }

  /**
   * Reserves statement time for one statement of {@code who}: {@code timeout}, or what is left
   * when that is less.
   *
   * @throws QueryFailedException when nothing is left, saying when there will be
   */
  public synchronized Grant reserve(String who, Duration timeout) {
    long now = clock.getAsLong();
    Account a = accounts.computeIfAbsent(who, k -> new Account());
    long left = budgetNanos - a.used(now);
    if (left < MIN_GRANT_NANOS) {
      throw new QueryFailedException("You have used your statement time (" + describe()
          + "); " + whenAgain(a, now));
    }
    long want = timeout.toNanos();
    long granted = Math.min(want, left);
    a.reserved += granted;
    return new Grant(who, granted, now, granted < want);
  }

  /** Says when enough finished statements fall out of the window to leave time again. */
  private String whenAgain(Account a, long now) {
    long used = a.used(now);
    for (long[] s : a.spent) {
      used -= s[1];
      if (budgetNanos - used >= MIN_GRANT_NANOS) {
        long seconds = Math.max(1, (s[0] + WINDOW_NANOS - now + 999_999_999L) / 1_000_000_000L);
        return "try again in " + seconds + " second" + (seconds == 1 ? "" : "s");
      }
    }
    return "try again when one of your running statements has finished";
  }

  private String describe() {
    Duration d = Duration.ofNanos(budgetNanos);
    String amount = d.toMillis() % 1000 == 0 ? d.toSeconds() + " s"
        : String.format(java.util.Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    return amount + " per minute";
  }
}
