package dev.keel.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the report says about the machine, read from {@code /proc} where there is one. */
final class Machine {

  private Machine() {}

  static String cpu() {
    return field("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch"));
  }

  static String memory() {
    return field("/proc/meminfo", "MemTotal")
        .map(kb -> Long.parseLong(kb.replaceAll("[^0-9]", "")) / (1024 * 1024) + " GiB memory")
        .orElse("memory unknown");
  }

  private static java.util.Optional<String> field(String file, String name) {
    try {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (line.startsWith(name)) {
          return java.util.Optional.of(line.substring(line.indexOf(':') + 1).trim());
        }
      }
    } catch (IOException | RuntimeException e) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.empty();
  }
}
