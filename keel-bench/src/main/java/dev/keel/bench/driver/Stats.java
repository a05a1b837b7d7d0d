package dev.keel.bench.driver;

import java.util.Arrays;

/** What one run measured: completed operations, errors and their latencies. */
final class Stats {

  long ok;
  long errors;
  long unmeasuredErrors;
  long windowNanos;
  String firstError;
  private long[] latencies = new long[1 << 14];
  private int count;

  void record(boolean success, long latencyNanos, ResponseParser response) {
    if (success) {
      ok++;
    } else {
      errors++;
      if (firstError == null) {
        firstError = "HTTP " + response.status() + " " + response.bodyText();
      }
    }
    if (count == latencies.length) {
      latencies = Arrays.copyOf(latencies, count * 2);
    }
    latencies[count++] = latencyNanos;
  }

  void error(String what) {
    errors++;
    if (firstError == null) {
      firstError = what;
    }
  }

  double perSecond() {
    return ok * 1e9 / windowNanos;
  }

  /** Returns the latency at quantile {@code q} in milliseconds. */
  double percentileMillis(double q) {
    if (count == 0) {
      return 0;
    }
    long[] sorted = Arrays.copyOf(latencies, count);
    Arrays.sort(sorted);
    int index = Math.max(0, Math.min(count - 1, (int) Math.ceil(q * count) - 1));
    return sorted[index] / 1e6;
  }
}
