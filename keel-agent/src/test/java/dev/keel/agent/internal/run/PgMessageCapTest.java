package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The cap on what PostgreSQL sends, on byte streams written by hand: messages within the cap
 * and rows pass unchanged, however the reads are split; an oversized error or notice comes out
 * as the same message with its fields cut; anything else oversized fails before its body is
 * read, and keeps failing.
 */
class PgMessageCapTest {

  static final int CAP = 64;

  static byte[] message(char type, byte[] body) {
    byte[] m = new byte[5 + body.length];
    m[0] = (byte) type;
    int length = body.length + 4;
    m[1] = (byte) (length >>> 24);
    m[2] = (byte) (length >>> 16);
    m[3] = (byte) (length >>> 8);
    m[4] = (byte) length;
    System.arraycopy(body, 0, m, 5, body.length);
    return m;
  }

  /** An error body: each field a type byte and a NUL-terminated text, then a NUL. */
  static byte[] fields(String... typeAndText) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String f : typeAndText) {
      out.write(f.charAt(0));
      out.writeBytes(f.substring(1).getBytes(StandardCharsets.UTF_8));
      out.write(0);
    }
    out.write(0);
    return out.toByteArray();
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** Reads everything through the cap in reads of random sizes. */
  static byte[] readAll(InputStream in, long seed) throws IOException {
    Random random = new Random(seed);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[100];
    while (true) {
      int n;
      try {
        n = in.read(buffer, 0, 1 + random.nextInt(buffer.length));
      } catch (SocketTimeoutException e) {
        continue;
      }
      if (n < 0) {
        return out.toByteArray();
      }
      out.write(buffer, 0, n);
    }
  }

  @Test
  void messagesWithinTheCapAndRowsPassUnchanged() throws IOException {
    byte[] stream = concat(message('T', new byte[20]), message('D', new byte[1000]),
        message('C', "SELECT 1\0".getBytes(StandardCharsets.US_ASCII)), message('Z', new byte[] {'I'}),
        message('N', new byte[CAP]));
    for (long seed = 0; seed < 20; seed++) {
      assertThat(readAll(new PgMessageCap(new ByteArrayInputStream(stream), new byte[0], CAP),
          seed)).isEqualTo(stream);
    }
  }

  @Test
  void whatTheDriverHadBufferedIsFramedFirst() throws IOException {
    byte[] stream = concat(message('S', "a\0b\0".getBytes(StandardCharsets.US_ASCII)),
        message('E', fields("SERROR", "M" + "x".repeat(5000))), message('Z', new byte[] {'I'}));
    for (int split = 0; split < 12; split++) {
      byte[] buffered = Arrays.copyOfRange(stream, 0, split);
      byte[] rest = Arrays.copyOfRange(stream, split, stream.length);
      byte[] out = readAll(new PgMessageCap(new ByteArrayInputStream(rest), buffered, CAP), split);
      assertThat(out).startsWith(message('S', "a\0b\0".getBytes(StandardCharsets.US_ASCII)));
      assertThat(out).endsWith(message('Z', new byte[] {'I'}));
    }
  }

  @Test
  void anOversizedErrorKeepsItsFieldsCutAndTheStreamGoesOn() throws IOException {
    String value = "x".repeat(200_000);
    byte[] stream = concat(message('E', fields("SERROR", "C22P02",
        "Minvalid input syntax for type integer: \"" + value + "\"", "Fnumutils.c")),
        message('Z', new byte[] {'I'}));
    byte[] out = readAll(new PgMessageCap(new ByteArrayInputStream(stream), new byte[0], CAP), 1);
    String kept = "invalid input syntax for type integer: \"" + value;
    byte[] expected = concat(message('E', fields("SERROR", "C22P02",
        "M" + kept.substring(0, PgMessageCap.FIELD_BYTES) + "...[cut: "
            + (kept.length() + 1 - PgMessageCap.FIELD_BYTES) + " more bytes]", "Fnumutils.c")),
        message('Z', new byte[] {'I'}));
    assertThat(out).isEqualTo(expected);
  }

  @Test
  void aCutNeverSplitsACharacter() throws IOException {
    // a two-byte character straddles the field's cut
    String text = "a" + "\u00e9".repeat(PgMessageCap.FIELD_BYTES);
    byte[] stream = message('N', fields("SNOTICE", "M" + text));
    byte[] out = readAll(new PgMessageCap(new ByteArrayInputStream(stream), new byte[0], CAP), 2);
    String body = new String(out, 5, out.length - 5, StandardCharsets.UTF_8);
    assertThat(body).doesNotContain("\ufffd").contains("a\u00e9\u00e9").contains("...[cut: ");
    int length = ((out[1] & 0xff) << 24) | ((out[2] & 0xff) << 16) | ((out[3] & 0xff) << 8)
        | (out[4] & 0xff);
    assertThat(length).isEqualTo(out.length - 1);
  }

  @Test
  void anyOtherOversizedMessageFailsBeforeItsBodyAndKeepsFailing() throws IOException {
    byte[] stream = concat(message('Z', new byte[] {'I'}), message('T', new byte[CAP + 1]));
    InputStream cap = new PgMessageCap(new ByteArrayInputStream(stream), new byte[0], CAP);
    assertThat(cap.readNBytes(6)).isEqualTo(message('Z', new byte[] {'I'}));
    assertThatThrownBy(cap::read).isInstanceOf(PgMessageCap.TooLarge.class)
        .hasMessageContaining("type 'T'").hasMessageContaining(String.valueOf(CAP + 1));
    assertThatThrownBy(cap::read).isInstanceOf(PgMessageCap.TooLarge.class);
  }

  @Test
  void aTimeoutInTheMiddleOfAnythingLosesNothing() throws IOException {
    byte[] stream = concat(message('D', new byte[300]), message('E', fields("SERROR",
        "M" + "y".repeat(10_000))), message('Z', new byte[] {'I'}));
    byte[] expected = readAll(new PgMessageCap(new ByteArrayInputStream(stream), new byte[0],
        CAP), 3);
    // the socket times out every few bytes, as the driver's probe for pending messages does
    InputStream flaky = new InputStream() {
      final ByteArrayInputStream in = new ByteArrayInputStream(stream);
      int calls;

      @Override
      public int read() {
        throw new UnsupportedOperationException();
      }

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        if (++calls % 3 == 0) {
          throw new SocketTimeoutException("probe");
        }
        return in.read(b, off, Math.min(len, 7));
      }
    };
    assertThat(readAll(new PgMessageCap(flaky, new byte[0], CAP), 4)).isEqualTo(expected);
  }
}
