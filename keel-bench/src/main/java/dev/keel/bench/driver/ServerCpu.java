package dev.keel.bench.driver;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time the server process has used, all its threads, from {@code /proc/PID/stat}.
 *
 * <p>Calls per second measure the machine as much as the server: on a shared host whose cores
 * stall, every server loses throughput and the ratios drift. The server's CPU time per call
 * divides out the stalls, so two builds of one server compare on a noisy machine where their
 * throughput does not.
 */
final class ServerCpu {

  /** Linux's USER_HZ, the unit of {@code utime} and {@code stime}, on every architecture. */
  private static final long TICKS_PER_SECOND = 100;

  /** A clock that cannot be read: for runs that report no CPU time. */
  static final ServerCpu UNKNOWN = new ServerCpu(0);

  private final Path stat;

  ServerCpu(long pid) {
    this.stat = pid > 0 ? Path.of("/proc/" + pid + "/stat") : null;
  }

  /** Returns user plus system CPU time in nanoseconds, or -1 when it cannot be read. */
  long nanos() {
    if (stat == null) {
      return -1;
    }
    try {
      return parse(new String(Files.readAllBytes(stat), StandardCharsets.US_ASCII));
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Reads fields 14 and 15 (utime, stime) of a {@code stat} line. The command name in field 2
   * may hold spaces and parentheses, so the fields are counted from its last ')'.
   */
  static long parse(String line) {
    String[] fields = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
    // fields[0] is field 3 (state): utime is field 14, stime field 15
    long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    return ticks * (1_000_000_000L / TICKS_PER_SECOND);
  }
}
