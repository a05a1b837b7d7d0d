package dev.keel.cli.output;

import dev.keel.mcp.client.ProgressListener;
import java.io.PrintStream;

/**
 * Draws a call's progress on stderr, so stdout keeps only the result: on a terminal one line
 * redrawn in place, otherwise (a pipe, a log) one plain line per report. Without a total it shows
 * the count.
 */
public final class ProgressBar implements ProgressListener {

  private static final int WIDTH = 30;

  private final PrintStream out;
  private final boolean terminal;
  private boolean drawn;

  /** Draws on {@code out}; {@code terminal} says whether it may redraw a line in place. */
  public ProgressBar(PrintStream out, boolean terminal) {
    this.out = out;
    this.terminal = terminal;
  }

  @Override
  public synchronized void onProgress(double progress, Double total, String message) {
    String line = describe(progress, total, message);
    if (terminal) {
      out.print("\r" + line + "\u001b[K");
      out.flush();
      drawn = true;
    } else {
      out.println(line);
    }
  }

  /** Returns one report as a line: a bar and a percentage with a total, else the count. */
  static String describe(double progress, Double total, String message) {
    StringBuilder line = new StringBuilder();
    if (total != null && total > 0) {
      double fraction = Math.max(0, Math.min(1, progress / total));
      int filled = (int) Math.round(fraction * WIDTH);
      line.append('[').append("#".repeat(filled)).append("-".repeat(WIDTH - filled))
          .append("] ").append(String.format("%3d%%", Math.round(fraction * 100)));
    } else {
      line.append("progress ").append(formatNumber(progress));
    }
    if (message != null && !message.isBlank()) {
      line.append("  ").append(TerminalText.firstLine(message, 60));
    }
    return line.toString();
  }

  /** Ends the progress line, if one was drawn. */
  public synchronized void finish() {
    if (drawn) {
      out.println();
      drawn = false;
    }
  }

  private static String formatNumber(double value) {
    return value == Math.rint(value) ? Long.toString((long) value) : Double.toString(value);
  }
}
