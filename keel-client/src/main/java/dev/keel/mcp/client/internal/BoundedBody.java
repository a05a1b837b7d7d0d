package dev.keel.mcp.client.internal;

import dev.keel.mcp.client.TransportException;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.zip.GZIPInputStream;

/** Response bodies from an untrusted server: decompressed and read only up to a bound. */
public final class BoundedBody {

  private BoundedBody() {}

  /** Returns the body stream, gunzipped when the server says so, never yielding over {@code max}. */
  public static InputStream open(InputStream raw, String contentEncoding, long max)
      throws IOException {
    InputStream in = raw;
    if (contentEncoding != null && contentEncoding.trim().equalsIgnoreCase("gzip")) {
      in = new GZIPInputStream(raw, 8192);
    }
    return new Capped(in, max);
  }

  /** Reads a whole bounded body. */
  public static byte[] readAll(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    in.transferTo(out);
    return out.toByteArray();
  }

  /** Counts what is read and fails past the cap, so a gzip bomb stops at the cap. */
  private static final class Capped extends FilterInputStream {
    private final long max;
    private long count;

    Capped(InputStream in, long max) {
      super(in);
      this.max = max;
    }

    @Override
    public int read() throws IOException {
      int b = super.read();
      if (b >= 0) {
        count(1);
      }
      return b;
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      int n = super.read(b, off, len);
      if (n > 0) {
        count(n);
      }
      return n;
    }

    private void count(int n) {
      count += n;
      if (count > max) {
        throw new TransportException("the server's response exceeded " + max + " bytes");
      }
    }
  }
}
