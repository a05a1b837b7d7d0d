package dev.keel.cli.output;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tells whether stdout or stderr is a terminal, and how wide it is.
 *
 * <p>JDK 17's {@code System.console()} exists only when stdin and stdout are both terminals, so
 * it says nothing about stderr: {@code keel call ... > out.json} leaves stderr at the terminal
 * (the spinner should still show), and {@code keel call ... 2> err.log} sends it to a file (no
 * escape codes may go there). On Linux the file descriptor's link under {@code /proc/self/fd}
 * names the device, and a terminal is a {@code /dev/pts/N} or {@code /dev/ttyN}. Where that
 * link cannot be read (another OS), the console is the best guess left: with none, stderr is
 * taken as no terminal, the safe side (plain lines, no redrawing).
 */
public final class Terminals {

  private Terminals() {}

  /** Returns true when stderr is a terminal. */
  public static boolean stderr() {
    return isTerminal(2);
  }

  /** Returns true when stdout is a terminal. */
  public static boolean stdout() {
    return isTerminal(1);
  }

  private static boolean isTerminal(int fd) {
    Path link = Path.of("/proc/self/fd/" + fd);
    try {
      String target = Files.readSymbolicLink(link).toString();
      return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
    } catch (IOException | UnsupportedOperationException | SecurityException e) {
      return System.console() != null;
    }
  }

  /**
   * Returns the terminal's width in columns: {@code $COLUMNS} when the shell exported it, else
   * what {@code stty size} reads from {@code /dev/tty} (shells seldom export {@code COLUMNS}),
   * else 100. Only used to keep a table from wrapping; a wrong guess costs looks, not data.
   */
  public static int width() {
    Integer columns = columns(System.getenv("COLUMNS"));
    if (columns == null) {
      columns = stty();
    }
    return columns == null ? 100 : columns;
  }

  private static Integer columns(String text) {
    if (text == null) {
      return null;
    }
    try {
      int n = Integer.parseInt(text.strip());
      return n >= 20 && n <= 1000 ? n : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  private static Integer stty() {
    java.io.File tty = new java.io.File("/dev/tty");
    if (!tty.exists()) {
      return null;
    }
    try {
      Process p = new ProcessBuilder("stty", "size").redirectInput(tty)
          .redirectError(ProcessBuilder.Redirect.DISCARD).start();
      String out = new String(p.getInputStream().readNBytes(64),
          java.nio.charset.StandardCharsets.US_ASCII).strip();
      if (!p.waitFor(1, java.util.concurrent.TimeUnit.SECONDS)) {
        p.destroyForcibly();
        return null;
      }
      String[] parts = out.split("\\s+");
      return p.exitValue() == 0 && parts.length == 2 ? columns(parts[1]) : null;
    } catch (IOException | RuntimeException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }
}
