package dev.keel.bench.driver;


/** What one run measured: completed operations, errors and their latencies. */
final class Stats {

  long ok;
  long errors;
  long unmeasuredErrors;
  long windowNanos;
  String firstError;
  private final Latencies latencies = new Latencies();

  void record(boolean success, long latencyNanos, ResponseParser response) {
    if (success) {
      ok++;
    } else {
      errors++;
      if (firstError == null) {
        firstError = "HTTP " + response.status() + " " + response.bodyText();
      }
    }
    latencies.add(latencyNanos);
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
    return latencies.millisAt(q);
  }
}
