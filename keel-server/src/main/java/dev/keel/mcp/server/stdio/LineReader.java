package dev.keel.mcp.server.stdio;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads newline-delimited messages with a hard cap: a line longer than the cap is skipped up to
 * its newline without being buffered, and reported as oversized.
 */
final class LineReader {

  /** A line, or the fact that one was too long. */
  record Line(byte[] bytes, boolean oversized) {}

  private final InputStream in;
  private final int maxBytes;
  private final byte[] buffer = new byte[8192];
  private int pos;
  private int limit;

  LineReader(InputStream in, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
  }

  /** Returns the next line without its terminator, or null at end of input. */
  Line next() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(256);
    boolean oversized = false;
    boolean sawAny = false;
    while (true) {
      if (pos == limit) {
        limit = in.read(buffer);
        pos = 0;
        if (limit <= 0) {
          limit = 0;
          return sawAny ? finish(line, oversized) : null;
        }
      }
      sawAny = true;
      int start = pos;
      while (pos < limit && buffer[pos] != '\n') {
        pos++;
      }
      if (!oversized) {
        if (line.size() + (pos - start) > maxBytes) {
          oversized = true;
          line.reset();
        } else {
          line.write(buffer, start, pos - start);
        }
      }
      if (pos < limit) {
        pos++;
        return finish(line, oversized);
      }
    }
  }

  private static Line finish(ByteArrayOutputStream line, boolean oversized) {
    if (oversized) {
      return new Line(new byte[0], true);
    }
    byte[] bytes = line.toByteArray();
    int end = bytes.length;
    if (end > 0 && bytes[end - 1] == '\r') {
      end--;
    }
    return new Line(end == bytes.length ? bytes : java.util.Arrays.copyOf(bytes, end), false);
  }
}
