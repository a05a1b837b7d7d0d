package dev.keel.mcp.http.internal;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Writes Server-Sent Events frames. Every frame that carries a JSON-RPC message is
 * {@code event: message}; a priming event has an id and empty data; keep-alives are comments.
 * Callers serialize access; each frame is flushed whole.
 */
final class SseWriter {

  private static final byte[] EVENT = "event: message\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] DATA = "data: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] END = "\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] KEEP_ALIVE = ": keep-alive\n\n".getBytes(StandardCharsets.US_ASCII);

  private final OutputStream out;

  SseWriter(OutputStream out) {
    this.out = out;
  }

  /** Writes one message; {@code json} must hold no raw newline (compact JSON never does). */
  void message(String id, byte[] json) throws IOException {
    out.write(EVENT);
    if (id != null) {
      out.write(("id: " + id + "\n").getBytes(StandardCharsets.US_ASCII));
    }
    out.write(DATA);
    out.write(json);
    out.write(END);
    out.flush();
  }

  /** Writes a priming event: an id, the reconnection delay, and empty data. */
  void prime(String id, long retryMillis) throws IOException {
    out.write(("id: " + id + "\nretry: " + retryMillis + "\ndata: \n\n")
        .getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Tells the client how long to wait before reconnecting. */
  void retry(long retryMillis) throws IOException {
    out.write(("retry: " + retryMillis + "\n\n").getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Writes a keep-alive comment. */
  void keepAlive() throws IOException {
    out.write(KEEP_ALIVE);
    out.flush();
  }

  /** Sends the headers now. */
  void flush() throws IOException {
    out.flush();
  }
}
