package dev.keel.bench.driver;

import java.util.Arrays;

/** Latencies in nanoseconds, kept whole so that any quantile is exact; one per thread. */
final class Latencies {

  private long[] values = new long[1 << 12];
  private int count;

  void add(long nanos) {
    if (count == values.length) {
      values = Arrays.copyOf(values, count * 2);
    }
    values[count++] = nanos;
  }

  void addAll(Latencies other) {
    for (int i = 0; i < other.count; i++) {
      add(other.values[i]);
    }
  }

  int count() {
    return count;
  }

  /** The latency at quantile {@code q}, in milliseconds; 0 when nothing was measured. */
  double millisAt(double q) {
    if (count == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    return sorted[Math.max(0, Math.min(count - 1, (int) Math.ceil(q * count) - 1))] / 1e6;
  }
}
