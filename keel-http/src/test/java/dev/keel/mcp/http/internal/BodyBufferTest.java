package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The buffer a body is read into: at most limit+1 bytes read, growth only with the bytes that
 * arrived (never to a declared length), and every byte of capacity taken from and given back to
 * the servlet's budget (issue 14, finding 8).
 */
class BodyBufferTest {

  /** An endless body that counts what was read from it. */
  static final class EndlessBody extends InputStream {
    long read;

    @Override
    public int read() {
      read++;
      return 'x';
    }

    @Override
    public int read(byte[] b, int off, int len) {
      java.util.Arrays.fill(b, off, off + len, (byte) 'x');
      read += len;
      return len;
    }
  }

  /** How a fill ended. */
  enum End { COMPLETE, TOO_LARGE, OVER_BUDGET, EOF }

  /** Reads into the buffer as {@code BodyRead} does, from a source that never waits. */
  static End fill(BodyBuffer buffer, InputStream in, long atMost) throws IOException {
    long total = 0;
    while (total < atMost) {
      if (buffer.complete()) {
        return End.COMPLETE;
      }
      if (!buffer.makeRoom()) {
        return End.OVER_BUDGET;
      }
      int n = in.read(buffer.array(), buffer.size(),
          (int) Math.min(buffer.room(), atMost - total));
      if (n < 0) {
        return End.EOF;
      }
      buffer.added(n);
      total += n;
      if (buffer.tooLarge()) {
        return End.TOO_LARGE;
      }
    }
    return buffer.complete() ? End.COMPLETE : End.EOF;
  }

  @Test
  void inv39_oversizedBodyIsRefusedAfterReadingAtMostLimitPlusOneBytes() throws IOException {
    for (int limit : new int[] {1, 100, 511, 512, 8192, 8193, 100_000}) {
      EndlessBody body = new EndlessBody();
      BodyBudget budget = new BodyBudget(Long.MAX_VALUE);
      BodyBuffer buffer = new BodyBuffer(limit, -1, budget);
      assertThat(fill(buffer, body, Long.MAX_VALUE)).as("limit %d", limit)
          .isEqualTo(End.TOO_LARGE);
      assertThat(body.read).as("bytes read with limit %d", limit).isEqualTo(limit + 1L);
      assertThat(buffer.reserved()).as("capacity with limit %d", limit)
          .isLessThanOrEqualTo(limit + 1L);
      buffer.release();
      assertThat(budget.reserved()).isZero();
    }
  }

  @Test
  void inv39_aDeclaredBodyIsReadToItsLengthAndNoFurther() throws IOException {
    for (int limit : new int[] {1, 100, 8192, 100_000}) {
      for (long declared : new long[] {1, limit / 2 + 1, limit}) {
        EndlessBody body = new EndlessBody();
        BodyBuffer buffer = new BodyBuffer(limit, declared, new BodyBudget(Long.MAX_VALUE));
        assertThat(fill(buffer, body, Long.MAX_VALUE)).isEqualTo(End.COMPLETE);
        assertThat(body.read).as("limit %d, declared %d", limit, declared).isEqualTo(declared);
        assertThat(buffer.take()).hasSize((int) declared);
      }
    }
  }

  @Test
  void aBufferGrowsWithTheBytesThatArrivedNotWithTheLengthDeclared() throws IOException {
    int fourMiB = 4 * 1024 * 1024;
    BodyBuffer buffer = new BodyBuffer(fourMiB, fourMiB, new BodyBudget(Long.MAX_VALUE));
    fill(buffer, new EndlessBody(), 1);
    assertThat(buffer.size()).isEqualTo(1);
    assertThat(buffer.array()).hasSize(BodyBuffer.FIRST);
    for (int received : new int[] {1000, 10_000, 100_000, 1_000_000}) {
      fill(buffer, new EndlessBody(), received - buffer.size());
      assertThat(buffer.size()).isEqualTo(received);
      assertThat(buffer.array().length).as("capacity after %d bytes", received)
          .isLessThanOrEqualTo(2 * received + BodyBuffer.FIRST);
      assertThat(buffer.reserved()).as("budget held after %d bytes", received)
          .isEqualTo(Math.max(0, buffer.array().length - BodyBuffer.UNCOUNTED));
    }
  }

  @Test
  void theBudgetBoundsWhatAllBodiesInProgressHoldAndComesBackWhole() throws IOException {
    long cap = 64 * 1024;
    BodyBudget budget = new BodyBudget(cap);
    List<BodyBuffer> buffers = new ArrayList<>();
    int refused = 0;
    for (int i = 0; i < 50; i++) {
      BodyBuffer buffer = new BodyBuffer(1024 * 1024, -1, budget);
      buffers.add(buffer);
      if (fill(buffer, new EndlessBody(), 20_000) == End.OVER_BUDGET) {
        refused++;
      }
      assertThat(budget.reserved()).isLessThanOrEqualTo(cap);
    }
    assertThat(refused).as("bodies refused once the budget was spent").isPositive();
    buffers.forEach(BodyBuffer::release);
    buffers.forEach(BodyBuffer::release);
    assertThat(budget.reserved()).isZero();
  }

  @Test
  void aSmallBodyNeedsNoBudgetSoOthersSpendingItNeverRefuseIt() throws IOException {
    BodyBudget spent = new BodyBudget(0);
    BodyBuffer small = new BodyBuffer(1024 * 1024, BodyBuffer.UNCOUNTED, spent);
    assertThat(fill(small, new EndlessBody(), Long.MAX_VALUE)).isEqualTo(End.COMPLETE);
    assertThat(small.take()).hasSize(BodyBuffer.UNCOUNTED);
    BodyBuffer larger = new BodyBuffer(1024 * 1024, -1, spent);
    assertThat(fill(larger, new EndlessBody(), Long.MAX_VALUE)).isEqualTo(End.OVER_BUDGET);
    assertThat(larger.size()).isEqualTo(BodyBuffer.UNCOUNTED);
  }

  @Test
  void aBodyTakenWholeIsExactlyTheBytesThatCame() throws IOException {
    byte[] json = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}".getBytes();
    BodyBudget budget = new BodyBudget(Long.MAX_VALUE);
    BodyBuffer buffer = new BodyBuffer(1000, -1, budget);
    assertThat(fill(buffer, new ByteArrayInputStream(json), Long.MAX_VALUE)).isEqualTo(End.EOF);
    assertThat(buffer.take()).isEqualTo(json);
    assertThat(budget.reserved()).isZero();
  }
}
