package dev.keel.bench.driver;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the memory of the server process: its resident set from {@code /proc/PID/status}, and
 * its heap in use after a full GC (by {@code jcmd}, or the MXBean when the server runs in the
 * driver's own process, as in the smoke test).
 */
final class ServerMemory {

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  private final long pid;

  ServerMemory(long pid) {
    this.pid = pid;
  }

  /** Returns VmRSS in bytes, or -1 when unknown (no pid, or not Linux). */
  long rssBytes() {
    if (pid <= 0) {
      return -1;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
    return -1;
  }

  /** Returns the heap in use after a full GC, in bytes, or -1 when it cannot be read. */
  long heapAfterGcBytes() {
    if (pid == ProcessHandle.current().pid()) {
      System.gc();
      System.gc();
      return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
    if (pid <= 0) {
      return -1;
    }
    try {
      jcmd("GC.run");
      return heapUsed(jcmd("GC.heap_info"));
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  /**
   * Sums the "used NK" of every heap line of {@code GC.heap_info}: one line for G1, two
   * generations for Serial (which a JVM pinned to one CPU picks) and Parallel. Metaspace and
   * class space are not heap.
   */
  static long heapUsed(String heapInfo) {
    long total = 0;
    boolean found = false;
    for (String line : heapInfo.split("\n")) {
      if (line.contains("Metaspace") || line.contains("class space")) {
        continue;
      }
      Matcher m = USED.matcher(line);
      if (m.find()) {
        total += Long.parseLong(m.group(1)) * 1024;
        found = true;
      }
    }
    return found ? total : -1;
  }

  private String jcmd(String command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), command)
        .redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
    }
    return new String(out, StandardCharsets.UTF_8);
  }
}
