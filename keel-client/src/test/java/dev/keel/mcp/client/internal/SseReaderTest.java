package dev.keel.mcp.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SseReaderTest {

  /**
   * A stream that hands over {@code first} and then blocks, like an idle SSE stream of a server
   * that ends its lines with CR alone (the spec allows CR, LF and CRLF).
   */
  private static InputStream thenIdle(String first, CountDownLatch release) {
    byte[] bytes = first.getBytes(StandardCharsets.UTF_8);
    return new InputStream() {
      private int at;

      @Override
      public int read() throws IOException {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (at < bytes.length) {
          int n = Math.min(len, bytes.length - at);
          System.arraycopy(bytes, at, b, off, n);
          at += n;
          return n;
        }
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        return -1;
      }
    };
  }

  /**
   * Found by SseReaderFuzzTest's model: after a CR at the end of what had arrived, the reader
   * read on to see whether an LF followed, so an event whose blank line ended in CR waited for
   * the server's next bytes, which on an idle stream may never come.
   */
  @Test
  void anEventEndedByCrIsDispatchedWithoutWaitingForMoreBytes() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    SseReader reader = new SseReader(thenIdle("data: hello\r\r", release), 4096);
    try {
      SseReader.Event event = CompletableFuture.supplyAsync(() -> {
        try {
          return reader.next();
        } catch (IOException e) {
          throw new RuntimeException(e);
        }
      }).get(5, TimeUnit.SECONDS);
      assertThat(event.data()).isEqualTo("hello");
    } finally {
      release.countDown();
    }
  }

  @Test
  void anLfAfterACrThatEndedTheLastReadIsNotABlankLine() throws Exception {
    InputStream split = new InputStream() {
      private final String[] parts = {"data: a\r", "\ndata: b\r\n", "\r\n"};
      private int part;

      @Override
      public int read() {
        throw new UnsupportedOperationException();
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (part == parts.length) {
          return -1;
        }
        byte[] bytes = parts[part++].getBytes(StandardCharsets.UTF_8);
        System.arraycopy(bytes, 0, b, off, bytes.length);
        return bytes.length;
      }
    };
    SseReader reader = new SseReader(split, 4096);
    assertThat(reader.next().data()).isEqualTo("a\nb");
    assertThat(reader.next()).isNull();
  }
}
