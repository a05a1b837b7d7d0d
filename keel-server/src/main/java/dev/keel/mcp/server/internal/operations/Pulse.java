package dev.keel.mcp.server.internal.operations;

import dev.keel.mcp.server.ServerOperations;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The server's recent traffic for charts: a ring of one-second buckets (five minutes), each
 * with a call count, an error count and a log-scale latency histogram, plus errors by code
 * since the start. Recording takes a lock only when a bucket turns over to a new second, so
 * it costs a request a few adder increments.
 */
public final class Pulse {

  /** How many seconds the ring keeps. */
  public static final int SECONDS = 300;
  // latency bins: bin i holds [2^(i/4) µs, 2^((i+1)/4) µs), about 19% wide; 96 bins reach ~16 s+
  private static final int BINS = 96;

  private static final class Bucket {
    volatile long second = -1;
    final LongAdder calls = new LongAdder();
    final LongAdder errors = new LongAdder();
    // Made when the bucket's second first sees a call: an idle server keeps no histograms
    // (300 seconds of 96 adders each were most of an idle server's operations memory).
    private volatile LongAdder[] bins;
    volatile int inFlight;

    LongAdder[] bins() {
      LongAdder[] made = bins;
      if (made == null) {
        synchronized (this) {
          made = bins;
          if (made == null) {
            made = new LongAdder[BINS];
            for (int i = 0; i < BINS; i++) {
              made[i] = new LongAdder();
            }
            bins = made;
          }
        }
      }
      return made;
    }

    long binSum(int i) {
      LongAdder[] made = bins;
      return made == null ? 0 : made[i].sum();
    }

    void reset(long s) {
      calls.reset();
      errors.reset();
      LongAdder[] made = bins;
      if (made != null) {
        for (LongAdder b : made) {
          b.reset();
        }
      }
      inFlight = 0;
      second = s;
    }
  }

  private final Bucket[] ring = new Bucket[SECONDS];
  private final Map<Integer, LongAdder> errorsByCode = new ConcurrentHashMap<>();
  private final LongSupplier clockMillis;

  /** Creates an empty pulse reading the wall clock. */
  public Pulse() {
    this(System::currentTimeMillis);
  }

  Pulse(LongSupplier clockMillis) {
    this.clockMillis = clockMillis;
    // buckets are small; their histograms are made on first use
    for (int i = 0; i < SECONDS; i++) {
      ring[i] = new Bucket();
    }
  }

  private Bucket current() {
    long s = clockMillis.getAsLong() / 1000;
    Bucket b = ring[(int) (s % SECONDS)];
    if (b.second != s) {
      synchronized (b) {
        if (b.second != s) {
          b.reset(s);
        }
      }
    }
    return b;
  }

  /**
   * Records a request that ended.
   *
   * @param nanos how long it took
   * @param errorCode its JSON-RPC error code, or null when it succeeded (or sent nothing)
   */
  public void ended(long nanos, Integer errorCode) {
    Bucket b = current();
    b.calls.increment();
    b.bins()[bin(nanos / 1000)].increment();
    if (errorCode != null) {
      b.errors.increment();
      errorsByCode.computeIfAbsent(errorCode, c -> new LongAdder()).increment();
    }
  }

  /** Records how many requests run at this moment (the server's timer calls it each second). */
  public void inFlight(int count) {
    current().inFlight = count;
  }

  /** Returns errors by code since the start. */
  public Map<Integer, Long> errorsByCode() {
    Map<Integer, Long> out = new TreeMap<>();
    errorsByCode.forEach((code, n) -> out.put(code, n.sum()));
    return out;
  }

  /** Returns one sample per second of the last {@link #SECONDS}, oldest first. */
  public List<ServerOperations.Sample> samples() {
    long now = clockMillis.getAsLong() / 1000;
    List<ServerOperations.Sample> out = new ArrayList<>(SECONDS);
    for (long s = now - SECONDS + 1; s <= now; s++) {
      Bucket b = ring[(int) (s % SECONDS)];
      if (b.second != s) {
        out.add(new ServerOperations.Sample(s, 0, 0, 0, 0, 0, 0));
        continue;
      }
      long[] counts = new long[BINS];
      long total = 0;
      for (int i = 0; i < BINS; i++) {
        counts[i] = b.binSum(i);
        total += counts[i];
      }
      out.add(new ServerOperations.Sample(s, b.calls.sum(), b.errors.sum(),
          percentile(counts, total, 0.50), percentile(counts, total, 0.95),
          percentile(counts, total, 0.99), b.inFlight));
    }
    return out;
  }

  static int bin(long micros) {
    if (micros <= 1) {
      return 0;
    }
    // four bins per doubling: the log's integer and two fraction bits
    double quarterLog = 4 * (Math.log(micros) / Math.log(2));
    return (int) Math.min(BINS - 1, Math.max(0, Math.floor(quarterLog)));
  }

  /** The upper edge of the bin that holds the {@code q} quantile, in microseconds. */
  static long percentile(long[] counts, long total, double q) {
    if (total == 0) {
      return 0;
    }
    long rank = (long) Math.ceil(q * total);
    long seen = 0;
    for (int i = 0; i < counts.length; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return Math.round(Math.pow(2, (i + 1) / 4.0));
      }
    }
    return Math.round(Math.pow(2, counts.length / 4.0));
  }
}
