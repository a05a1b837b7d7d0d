package dev.keel.cli.output;

import dev.keel.mcp.client.ProgressListener;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one line at the bottom of stderr that shows how a call is going: an elapsed-time spinner
 * ({@code ⠋ test_sleep 3.2s}) while the server reports nothing, the progress bar once it
 * reports progress, and the server's log lines printed above it.
 *
 * <p>On a terminal the line is redrawn in place and cleared by {@link #finish()} before the
 * result prints; the spinner waits a moment before it first shows, so a quick call draws
 * nothing. When stderr is not a terminal there is no spinner and no escape code: progress and
 * log messages are plain lines, one per report (as {@link ProgressBar} prints them). While a
 * question is put to the person ({@link #pause()}), nothing is drawn.
 *
 * <pre>{@code
 * StatusLine status = new StatusLine(System.err, Terminals.stderr(), "test_sleep");
 * status.start();
 * try {
 *   result = client.callTool("test_sleep", args, CallOptions.defaults().withProgress(status));
 * } finally {
 *   status.finish();
 * }
 * }</pre>
 */
public final class StatusLine implements ProgressListener {

  private static final String[] UNICODE_FRAMES =
      {"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"};
  private static final String[] ASCII_FRAMES = {"|", "/", "-", "\\"};
  private static final long FIRST_DRAW_MS = 300;
  private static final long REDRAW_MS = 100;

  private final PrintStream out;
  private final boolean terminal;
  private final String label;
  private final String[] frames;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final long started = System.nanoTime();
  private String progressLine;
  private boolean drawn;
  private boolean paused;
  private boolean finished;
  private int frame;
  private Thread spinner;

  /**
   * Draws on {@code out}.
   *
   * @param terminal whether {@code out} is a terminal (redraw in place, spinner)
   * @param label what is running, shown beside the spinner (a tool's name)
   */
  public StatusLine(PrintStream out, boolean terminal, String label) {
    this.out = out;
    this.terminal = terminal;
    this.label = TerminalText.firstLine(label, 60);
    this.frames = unicode() ? UNICODE_FRAMES : ASCII_FRAMES;
  }

  /** Starts the spinner (on a terminal only); call {@link #finish()} when the call ends. */
  public void start() {
    if (!terminal) {
      return;
    }
    spinner = new Thread(this::spin, "keel-spinner");
    spinner.setDaemon(true);
    spinner.start();
  }

  private void spin() {
    lock.lock();
    try {
      long wait = FIRST_DRAW_MS;
      while (!finished) {
        changed.await(wait, TimeUnit.MILLISECONDS);
        wait = REDRAW_MS;
        if (!finished && !paused && progressLine == null) {
          frame = (frame + 1) % frames.length;
          draw(frames[frame] + " " + label + " " + elapsed());
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }

  private String elapsed() {
    long tenths = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started) / 100;
    return String.format(Locale.ROOT, "%d.%ds", tenths / 10, tenths % 10);
  }

  @Override
  public void onProgress(double progress, Double total, String message) {
    lock.lock();
    try {
      if (finished) {
        return;
      }
      String line = ProgressBar.describe(progress, total, message);
      if (terminal) {
        progressLine = line;
        if (!paused) {
          draw(line);
        }
      } else {
        out.println(line);
      }
    } finally {
      lock.unlock();
    }
  }

  /** Prints one line above the status line (a log message), then redraws the status line. */
  public void message(String line) {
    lock.lock();
    try {
      if (terminal && drawn) {
        out.print("\r\u001b[K");
        drawn = false;
      }
      out.println(line);
      if (terminal && progressLine != null && !paused && !finished) {
        draw(progressLine);
      }
      out.flush();
    } finally {
      lock.unlock();
    }
  }

  /** Clears the line and draws nothing until {@link #resume()}: a question is being asked. */
  public void pause() {
    lock.lock();
    try {
      paused = true;
      clear();
    } finally {
      lock.unlock();
    }
  }

  /** Draws again after {@link #pause()}. */
  public void resume() {
    lock.lock();
    try {
      paused = false;
      if (progressLine != null && !finished) {
        draw(progressLine);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops the spinner and clears the line, so the result starts on a clean line. Idempotent.
   */
  public void finish() {
    lock.lock();
    try {
      finished = true;
      clear();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    if (spinner != null) {
      try {
        spinner.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private void draw(String line) {
    out.print("\r" + line + "\u001b[K");
    out.flush();
    drawn = true;
  }

  private void clear() {
    if (drawn) {
      out.print("\r\u001b[K");
      out.flush();
      drawn = false;
    }
  }

  /**
   * The braille frames need UTF-8 on stderr; under a plain C locale they would print as
   * question marks, so the spinner falls back to ASCII there.
   */
  private static boolean unicode() {
    String encoding = System.getProperty("sun.stderr.encoding");
    Charset charset;
    try {
      charset = encoding != null ? Charset.forName(encoding) : Charset.defaultCharset();
    } catch (RuntimeException e) {
      return false;
    }
    return charset.equals(StandardCharsets.UTF_8);
  }
}
