package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import org.junit.jupiter.api.Test;

/** The body reader and the header checks behind the HTTP gates. */
class GatesTest {

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

  @Test
  void inv39_oversizedBodyIsRefusedAfterReadingAtMostLimitPlusOneBytes() throws IOException {
    for (int limit : new int[] {1, 100, 8192, 8193, 100_000}) {
      EndlessBody body = new EndlessBody();
      assertThat(Gates.readAtMost(body, limit)).as("limit %d", limit).isNull();
      assertThat(body.read).as("bytes read with limit %d", limit).isLessThanOrEqualTo(limit + 1L);
    }
  }

  @Test
  void inv39_aBodyLongerThanItsDeclaredLengthIsStillRefusedAfterLimitPlusOneBytes()
      throws IOException {
    for (int limit : new int[] {1, 100, 8192, 100_000}) {
      for (long declared : new long[] {0, limit / 2, limit}) {
        EndlessBody body = new EndlessBody();
        assertThat(Gates.readAtMost(body, limit, declared))
            .as("limit %d, declared %d", limit, declared).isNull();
        assertThat(body.read).as("bytes read with limit %d", limit)
            .isLessThanOrEqualTo(limit + 1L);
      }
    }
  }

  @Test
  void aDeclaredLengthIsReadIntoAnArrayOfExactlyThatSize() throws IOException {
    byte[] json = "{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}".getBytes();
    assertThat(Gates.readAtMost(new java.io.ByteArrayInputStream(json), 1000, json.length))
        .isEqualTo(json);
    assertThat(Gates.readAtMost(new java.io.ByteArrayInputStream(json), json.length,
        json.length)).isEqualTo(json);
    // Unknown length (chunked): the bounded loop.
    assertThat(Gates.readAtMost(new java.io.ByteArrayInputStream(json), 1000, -1))
        .isEqualTo(json);
  }

  @Test
  void aBodyShorterThanDeclaredIsReturnedAsItCame() throws IOException {
    byte[] part = "{\"jsonrpc\"".getBytes();
    assertThat(Gates.readAtMost(new java.io.ByteArrayInputStream(part), 1000, 500))
        .isEqualTo(part);
  }

  @Test
  void bodyAtTheLimitIsReadWhole() throws IOException {
    byte[] exact = "x".repeat(1000).getBytes();
    assertThat(Gates.readAtMost(new java.io.ByteArrayInputStream(exact), 1000)).hasSize(1000);
  }

  @Test
  void onlyApplicationJsonIsJson() {
    assertThat(Gates.isJson("application/json")).isTrue();
    assertThat(Gates.isJson("Application/JSON; charset=utf-8")).isTrue();
    assertThat(Gates.isJson("text/plain")).isFalse();
    assertThat(Gates.isJson("application/jsonx")).isFalse();
    assertThat(Gates.isJson(null)).isFalse();
  }

  @Test
  void sessionIdsAreVisibleAsciiAndBounded() {
    assertThat(Gates.validSessionId("abc-DEF_123.~!")).isTrue();
    assertThat(Gates.validSessionId("with space")).isFalse();
    assertThat(Gates.validSessionId("tab\there")).isFalse();
    assertThat(Gates.validSessionId("caf\u00e9")).isFalse();
    assertThat(Gates.validSessionId("")).isFalse();
    assertThat(Gates.validSessionId("x".repeat(128))).isTrue();
    assertThat(Gates.validSessionId("x".repeat(129))).isFalse();
  }
}
