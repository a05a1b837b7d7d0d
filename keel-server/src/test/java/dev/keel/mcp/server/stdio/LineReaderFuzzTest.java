package dev.keel.mcp.server.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Fuzzes the stdio line reader against a model of it: whatever the bytes, the cap and the way
 * the pipe hands them over (reads of any size), it returns exactly the input's lines, without a
 * trailing carriage return, and a line longer than the cap only as "oversized".
 */
class LineReaderFuzzTest {

  @FuzzTest
  void readAnything(FuzzedDataProvider data) throws IOException {
    int max = data.consumeInt(1, 64);
    int chunk = data.consumeInt(1, 9000);
    byte[] input = data.consumeRemainingAsBytes();
    InputStream pipe = new ByteArrayInputStream(input) {
      @Override
      public synchronized int read(byte[] b, int off, int len) {
        return super.read(b, off, Math.min(len, chunk));
      }
    };
    LineReader reader = new LineReader(pipe, max);
    List<String> got = new ArrayList<>();
    for (LineReader.Line line; (line = reader.next()) != null; ) {
      got.add(line.oversized() ? "<oversized>" : Arrays.toString(line.bytes()));
    }
    assertThat(got).isEqualTo(model(input, max));
  }

  private static List<String> model(byte[] input, int max) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i <= input.length; i++) {
      boolean end = i == input.length;
      if (end && start == input.length) {
        break;
      }
      if (end || input[i] == '\n') {
        byte[] line = Arrays.copyOfRange(input, start, i);
        if (line.length > max) {
          lines.add("<oversized>");
        } else {
          if (line.length > 0 && line[line.length - 1] == '\r') {
            line = Arrays.copyOf(line, line.length - 1);
          }
          lines.add(Arrays.toString(line));
        }
        start = i + 1;
      }
    }
    return lines;
  }
}
