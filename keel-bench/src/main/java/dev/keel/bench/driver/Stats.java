package dev.keel.bench.driver;


/** What one run measured: completed operations, errors and their latencies. */
final class Stats {

  long ok;
  long errors;
  long unmeasuredErrors;
  long windowNanos;
  static final long NOT_READ = Long.MIN_VALUE;
  /** The server's CPU clock when the measured window opened; -1 when it cannot be read. */
  long serverCpuAtStart = NOT_READ;
  /** The server's CPU time inside the measured window; -1 when unknown. */
  long serverCpuNanos = -1;
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

  /** Returns the server's CPU time per completed call in microseconds, or -1 when unknown. */
  double serverCpuMicrosPerCall() {
    return serverCpuNanos < 0 || ok == 0 ? -1 : serverCpuNanos / 1000.0 / ok;
  }

  double perSecond() {
    return ok * 1e9 / windowNanos;
  }

  /** Returns the latency at quantile {@code q} in milliseconds. */
  double percentileMillis(double q) {
    return latencies.millisAt(q);
  }
}
