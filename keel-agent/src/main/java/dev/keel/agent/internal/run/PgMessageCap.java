package dev.keel.agent.internal.run;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Field;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Arrays;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.PGStream;
import org.postgresql.core.QueryExecutorBase;
import org.postgresql.core.VisibleBufferedInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds what PostgreSQL can make the driver hold, message by message, before the driver reads
 * a message body. pgjdbc reads every backend message whole into memory: a row by its
 * {@code maxResultBuffer} property (which the agent sets, see {@code Database}), but an error
 * or a notice without any limit, and an error can quote a value of any size ({@code SELECT
 * CAST(repeat('x', 100000000) AS int)} answers {@code invalid input syntax for type integer:
 * "xxx..."}, 100 MB that the driver turns into several copies of itself).
 *
 * <p>This stream sits between the driver's buffer and the connection's (already decrypted)
 * socket stream, follows the protocol's framing (a type byte and a length before every message),
 * and:
 * <ul>
 *   <li>passes rows ({@code DataRow}) and every message within the cap as they are;</li>
 *   <li>rewrites an error or notice over the cap as the same message with every field cut to its
 *       first {@value #FIELD_BYTES} bytes, reading the original through a small buffer, so the
 *       caller still sees what went wrong and the connection stays usable;</li>
 *   <li>fails any other message over the cap with {@link TooLarge} before the driver reads its
 *       body; the driver then closes the connection.</li>
 * </ul>
 * The driver offers no hook for this, so {@link #install} places the stream by reflection on
 * the driver version the agent ships with; on a driver whose layout differs it refuses to run
 * statements rather than run them unbounded.
 */
final class PgMessageCap extends InputStream {

  /** The largest message body other than a row the driver is handed as it is. */
  static final int MAX_MESSAGE_BYTES = 1 << 20;

  /** How much of each field of an oversized error or notice is kept. */
  static final int FIELD_BYTES = 2048;

  /** The driver read a message over the cap; the connection is not usable afterwards. */
  static final class TooLarge extends IOException {
    private static final long serialVersionUID = 1L;

    TooLarge(String message) {
      super(message);
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(PgMessageCap.class);

  private static final Layout LAYOUT = Layout.find();

  private final InputStream in;
  private final int maxBytes;
  /** Bytes ready for the driver: what it had buffered, a header, or a rewritten message. */
  private byte[] out;
  private int outPos;
  private int outEnd;
  private final byte[] header = new byte[5];
  private int headerFill;
  /** Body bytes of the current message still to pass through unchanged. */
  private long remaining;
  private Rewrite rewrite;
  private IOException failed;
  /** Bytes the driver had buffered, still to be framed, before anything is read from {@code in}. */
  private byte[] pending;
  private int pendingPos;

  PgMessageCap(InputStream in, byte[] buffered, int maxBytes) {
    this.in = in;
    this.maxBytes = maxBytes;
    // what the driver had buffered starts at a message boundary (it is between statements),
    // so it goes through the same framing as everything after it
    this.pending = buffered.length == 0 ? null : buffered;
  }

  /**
   * Places the cap on a PostgreSQL connection (once; later calls find it in place).
   *
   * @throws QueryFailedException when the driver's layout is not the one the cap knows
   */
  static void install(Connection c) throws SQLException {
    if (LAYOUT.problem != null) {
      throw unsupported(LAYOUT.problem);
    }
    try {
      Object executor = c.unwrap(BaseConnection.class).getQueryExecutor();
      PGStream stream = (PGStream) LAYOUT.pgStream.get(executor);
      VisibleBufferedInputStream input = (VisibleBufferedInputStream) LAYOUT.pgInput.get(stream);
      if (input.getWrapped() instanceof PgMessageCap) {
        return;
      }
      byte[] buffered = Arrays.copyOfRange(input.getBuffer(), input.getIndex(),
          LAYOUT.endIndex.getInt(input));
      VisibleBufferedInputStream replacement = new VisibleBufferedInputStream(
          new PgMessageCap(input.getWrapped(), buffered, MAX_MESSAGE_BYTES), 8192);
      replacement.setTimeoutRequested(LAYOUT.timeoutRequested.getBoolean(input));
      LAYOUT.pgInput.set(stream, replacement);
    } catch (ReflectiveOperationException | ClassCastException e) {
      throw unsupported(e.toString());
    }
  }

  private static QueryFailedException unsupported(String why) {
    LOG.warn("cannot bound what the PostgreSQL driver reads: {}", why);
    return new QueryFailedException("The agent cannot bound what this PostgreSQL driver reads "
        + "(an unsupported driver version); it runs no statements on it");
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n;
    do {
      n = read(one, 0, 1);
    } while (n == 0);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (len == 0) {
      return 0;
    }
    if (failed != null) {
      throw failed;
    }
    try {
      while (true) {
        if (outPos < outEnd) {
          int n = Math.min(len, outEnd - outPos);
          System.arraycopy(out, outPos, b, off, n);
          outPos += n;
          return n;
        }
        if (remaining > 0) {
          int n = upstream(b, off, (int) Math.min(len, remaining));
          if (n > 0) {
            remaining -= n;
          } else if (n < 0) {
            throw new EOFException("the connection ended inside a message");
          }
          return n;
        }
        if (rewrite != null) {
          byte[] message = rewrite.consume();
          if (message == null) {
            return 0;
          }
          rewrite = null;
          emit(message);
          continue;
        }
        while (headerFill < header.length) {
          int n = upstream(header, headerFill, header.length - headerFill);
          if (n < 0) {
            if (headerFill == 0) {
              return -1;
            }
            throw new EOFException("the connection ended inside a message header");
          }
          if (n == 0) {
            return 0;
          }
          headerFill += n;
        }
        headerFill = 0;
        frame();
      }
    } catch (TooLarge e) {
      failed = e;
      throw e;
    }
  }

  /** Decides what to do with the message whose header was just read. */
  private void frame() throws IOException {
    byte type = header[0];
    long length = ((header[1] & 0xffL) << 24) | ((header[2] & 0xff) << 16)
        | ((header[3] & 0xff) << 8) | (header[4] & 0xff);
    if (length < 4) {
      throw new TooLarge("PostgreSQL sent a malformed message (length " + length + ")");
    }
    long body = length - 4;
    if (body <= maxBytes || type == 'D') {
      emit(header.clone());
      remaining = body;
      return;
    }
    if (type == 'E' || type == 'N') {
      rewrite = new Rewrite(type, body);
      return;
    }
    throw new TooLarge("PostgreSQL sent a message of " + body + " bytes (type '" + (char) type
        + "'), more than the agent reads at once (" + maxBytes + ")");
  }

  private void emit(byte[] bytes) {
    out = bytes;
    outPos = 0;
    outEnd = bytes.length;
  }

  /** Reads from what the driver had buffered first, then from the connection. */
  private int upstream(byte[] b, int off, int len) throws IOException {
    if (pending != null) {
      int n = Math.min(len, pending.length - pendingPos);
      System.arraycopy(pending, pendingPos, b, off, n);
      pendingPos += n;
      if (pendingPos == pending.length) {
        pending = null;
      }
      if (n > 0) {
        return n;
      }
    }
    return in.read(b, off, len);
  }

  @Override
  public int available() throws IOException {
    if (outPos < outEnd) {
      return outEnd - outPos;
    }
    int buffered = pending == null ? 0 : pending.length - pendingPos;
    int waiting = buffered > 0 ? buffered : in.available();
    return remaining > 0 ? (int) Math.min(remaining, waiting) : Math.min(waiting, 1);
  }

  @Override
  public void close() throws IOException {
    in.close();
  }

  /**
   * An oversized error or notice, read through a small buffer and written again with each field
   * cut. Its fields are a type byte and a NUL-terminated text each, then a NUL.
   */
  private final class Rewrite {
    private final byte type;
    private long left;
    private final byte[] chunk = new byte[8192];
    private final java.io.ByteArrayOutputStream kept = new java.io.ByteArrayOutputStream();
    /** -1 before a field's type byte, else the bytes of the field's text seen so far. */
    private long inField = -1;
    private long fieldCut;
    private boolean ended;

    Rewrite(byte type, long body) {
      this.type = type;
      this.left = body;
    }

    /** Reads on; returns the rewritten message once the original was read to its end. */
    byte[] consume() throws IOException {
      while (left > 0) {
        int n = upstream(chunk, 0, (int) Math.min(chunk.length, left));
        if (n < 0) {
          throw new EOFException("the connection ended inside a message");
        }
        if (n == 0) {
          return null;
        }
        left -= n;
        for (int i = 0; i < n && !ended; i++) {
          take(chunk[i]);
        }
      }
      if (!ended) {
        // a message without its final NUL: close what is open so the driver can parse it
        if (inField >= 0) {
          endField();
        }
        kept.write(0);
      }
      byte[] fields = kept.toByteArray();
      byte[] message = new byte[5 + fields.length];
      int length = 4 + fields.length;
      message[0] = type;
      message[1] = (byte) (length >>> 24);
      message[2] = (byte) (length >>> 16);
      message[3] = (byte) (length >>> 8);
      message[4] = (byte) length;
      System.arraycopy(fields, 0, message, 5, fields.length);
      return message;
    }

    private void take(byte b) {
      if (inField < 0) {
        kept.write(b);
        if (b == 0) {
          ended = true;
        } else {
          inField = 0;
          fieldCut = 0;
        }
        return;
      }
      if (b == 0) {
        endField();
        return;
      }
      // keep whole UTF-8 characters: a continuation byte goes with the character it belongs to
      boolean continuation = (b & 0xc0) == 0x80;
      if (inField < FIELD_BYTES || (continuation && fieldCut == 0)) {
        kept.write(b);
      } else {
        fieldCut++;
      }
      inField++;
    }

    private void endField() {
      if (fieldCut > 0) {
        byte[] marker = ("...[cut: " + fieldCut + " more bytes]")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        kept.write(marker, 0, marker.length);
      }
      kept.write(0);
      inField = -1;
    }
  }

  /** Where the driver keeps what the cap replaces, found once. */
  private static final class Layout {
    final Field pgStream;
    final Field pgInput;
    final Field endIndex;
    final Field timeoutRequested;
    final String problem;

    private Layout(Field pgStream, Field pgInput, Field endIndex, Field timeoutRequested,
        String problem) {
      this.pgStream = pgStream;
      this.pgInput = pgInput;
      this.endIndex = endIndex;
      this.timeoutRequested = timeoutRequested;
      this.problem = problem;
    }

    static Layout find() {
      try {
        Field pgStream = QueryExecutorBase.class.getDeclaredField("pgStream");
        Field pgInput = PGStream.class.getDeclaredField("pgInput");
        Field endIndex = VisibleBufferedInputStream.class.getDeclaredField("endIndex");
        Field timeout = VisibleBufferedInputStream.class.getDeclaredField("timeoutRequested");
        for (Field f : new Field[] {pgStream, pgInput, endIndex, timeout}) {
          f.setAccessible(true);
        }
        if (pgInput.getType() != VisibleBufferedInputStream.class) {
          return new Layout(null, null, null, null, "PGStream.pgInput is a "
              + pgInput.getType().getName());
        }
        return new Layout(pgStream, pgInput, endIndex, timeout, null);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return new Layout(null, null, null, null, e.toString());
      }
    }
  }
}
