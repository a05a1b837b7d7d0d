package dev.keel.mcp.test.annotations;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Captures what the server logs. slf4j-simple (test scope) writes each line to whatever
 * {@link System#err} is at that moment; this tees it into a buffer until closed.
 */
final class LogCapture implements AutoCloseable {

  private final PrintStream original = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  LogCapture() {
    OutputStream tee = new OutputStream() {
      @Override
      public void write(int b) {
        synchronized (buffer) {
          buffer.write(b);
        }
        original.write(b);
      }

      @Override
      public void write(byte[] b, int off, int len) {
        synchronized (buffer) {
          buffer.write(b, off, len);
        }
        original.write(b, off, len);
      }

      @Override
      public void flush() {
        original.flush();
      }
    };
    System.setErr(new PrintStream(tee, true, StandardCharsets.UTF_8));
  }

  /** Returns everything logged so far. */
  String text() {
    synchronized (buffer) {
      return buffer.toString(StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    System.err.flush();
    System.setErr(original);
  }
}
