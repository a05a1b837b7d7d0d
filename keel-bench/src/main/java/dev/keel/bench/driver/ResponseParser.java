package dev.keel.bench.driver;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;

/**
 * An incremental HTTP/1.1 response parser for the driver: status, the few headers the driver
 * needs, and a body framed by {@code Content-Length}, chunked encoding or the connection's end.
 * It keeps at most {@value #BODY_CAP} bytes of a body, enough to see a JSON-RPC error or a
 * tool's {@code isError}, and reads past the rest.
 *
 * <p>Fed from a non-blocking socket, it consumes what it can and leaves any bytes of the next
 * response in the buffer. Not thread-safe: one per connection.
 */
final class ResponseParser {

  static final int BODY_CAP = 16 * 1024;
  private static final int MAX_HEAD = 16 * 1024;
  private static final byte[] RPC_ERROR = "\"error\":{".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] TOOL_ERROR = "\"isError\":true".getBytes(StandardCharsets.US_ASCII);

  private enum State { HEAD, LENGTH, CHUNK_SIZE, CHUNK_DATA, CHUNK_CRLF, TRAILER, TO_CLOSE, DONE }

  private State state = State.HEAD;
  private byte[] head = new byte[512];
  private int headLength;
  private byte[] body = new byte[1024];
  private int bodyLength;
  private long remaining;
  private final StringBuilder line = new StringBuilder();

  private int status;
  private String sessionId;
  private String contentType;
  private boolean closeAfter;

  /** Forgets the last response; the next bytes start a new one. */
  void reset() {
    state = State.HEAD;
    headLength = 0;
    bodyLength = 0;
    status = 0;
    sessionId = null;
    contentType = null;
    closeAfter = false;
    line.setLength(0);
  }

  /**
   * Consumes bytes from {@code in} (between position and limit) until a response is complete.
   *
   * @return true when a whole response has been read; bytes after it stay in {@code in}
   * @throws IllegalStateException on a response this parser cannot frame
   */
  boolean feed(ByteBuffer in) {
    while (in.hasRemaining() && state != State.DONE) {
      switch (state) {
        case HEAD: readHead(in); break;
        case LENGTH: readBody(in); break;
        case CHUNK_SIZE: readChunkSize(in); break;
        case CHUNK_DATA: readChunk(in); break;
        case CHUNK_CRLF: readChunkEnd(in); break;
        case TRAILER: readTrailer(in); break;
        case TO_CLOSE: copyBody(in, in.remaining()); break;
        default: throw new IllegalStateException(state.name());
      }
    }
    return state == State.DONE;
  }

  /** Tells the parser the peer closed; returns true when that ends a close-framed body. */
  boolean endOfStream() {
    if (state == State.TO_CLOSE) {
      state = State.DONE;
      closeAfter = true;
      return true;
    }
    return false;
  }

  /** Returns true once the status line and headers are in. */
  boolean headersDone() {
    return state != State.HEAD;
  }

  int status() {
    return status;
  }

  String sessionId() {
    return sessionId;
  }

  boolean eventStream() {
    return contentType != null && contentType.startsWith("text/event-stream");
  }

  /** Returns true when the connection cannot carry another request. */
  boolean closeAfter() {
    return closeAfter;
  }

  /** Returns true for a non-2xx status, a JSON-RPC error, or a tool result flagged isError. */
  boolean failed() {
    return status < 200 || status > 299 || contains(RPC_ERROR) || contains(TOOL_ERROR);
  }

  /** Returns the kept part of the body as text. */
  String bodyText() {
    return new String(body, 0, bodyLength, StandardCharsets.UTF_8);
  }

  private boolean contains(byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= bodyLength; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (body[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private void readHead(ByteBuffer in) {
    while (in.hasRemaining()) {
      if (headLength == head.length) {
        if (head.length >= MAX_HEAD) {
          throw new IllegalStateException("response head over " + MAX_HEAD + " bytes");
        }
        head = Arrays.copyOf(head, head.length * 2);
      }
      head[headLength++] = in.get();
      if (headLength >= 4 && head[headLength - 1] == '\n' && head[headLength - 2] == '\r'
          && head[headLength - 3] == '\n' && head[headLength - 4] == '\r') {
        parseHead();
        return;
      }
    }
  }

  private void parseHead() {
    String[] lines = new String(head, 0, headLength - 4, StandardCharsets.ISO_8859_1)
        .split("\r\n");
    String[] statusLine = lines[0].split(" ", 3);
    status = Integer.parseInt(statusLine[1]);
    long length = -1;
    boolean chunked = false;
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String name = lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = lines[i].substring(colon + 1).trim();
      switch (name) {
        case "content-length": length = Long.parseLong(value); break;
        case "transfer-encoding": chunked = value.toLowerCase(Locale.ROOT).contains("chunked"); break;
        case "mcp-session-id": sessionId = value; break;
        case "content-type": contentType = value.toLowerCase(Locale.ROOT); break;
        case "connection": closeAfter = value.equalsIgnoreCase("close"); break;
        default: break;
      }
    }
    if (status == 204 || status == 304 || status < 200 || length == 0) {
      state = State.DONE;
    } else if (chunked) {
      state = State.CHUNK_SIZE;
    } else if (length > 0) {
      remaining = length;
      state = State.LENGTH;
    } else {
      state = State.TO_CLOSE;
    }
  }

  private void readBody(ByteBuffer in) {
    int n = (int) Math.min(remaining, in.remaining());
    copyBody(in, n);
    remaining -= n;
    if (remaining == 0) {
      state = State.DONE;
    }
  }

  private void readChunkSize(ByteBuffer in) {
    if (!readLine(in)) {
      return;
    }
    String size = line.toString();
    int semicolon = size.indexOf(';');
    remaining = Long.parseLong((semicolon >= 0 ? size.substring(0, semicolon) : size).trim(), 16);
    line.setLength(0);
    state = remaining == 0 ? State.TRAILER : State.CHUNK_DATA;
  }

  private void readChunk(ByteBuffer in) {
    int n = (int) Math.min(remaining, in.remaining());
    copyBody(in, n);
    remaining -= n;
    if (remaining == 0) {
      state = State.CHUNK_CRLF;
    }
  }

  private void readChunkEnd(ByteBuffer in) {
    if (readLine(in)) {
      line.setLength(0);
      state = State.CHUNK_SIZE;
    }
  }

  private void readTrailer(ByteBuffer in) {
    if (readLine(in)) {
      boolean empty = line.length() == 0;
      line.setLength(0);
      if (empty) {
        state = State.DONE;
      }
    }
  }

  /** Reads up to a CRLF into {@link #line} (without it); returns true when the line ended. */
  private boolean readLine(ByteBuffer in) {
    while (in.hasRemaining()) {
      char c = (char) (in.get() & 0xff);
      if (c == '\n') {
        int last = line.length() - 1;
        if (last >= 0 && line.charAt(last) == '\r') {
          line.setLength(last);
        }
        return true;
      }
      line.append(c);
    }
    return false;
  }

  private void copyBody(ByteBuffer in, int n) {
    int keep = Math.max(0, Math.min(n, BODY_CAP - bodyLength));
    if (keep > 0) {
      if (bodyLength + keep > body.length) {
        body = Arrays.copyOf(body, Math.min(BODY_CAP, Math.max(body.length * 2, bodyLength + keep)));
      }
      in.get(body, bodyLength, keep);
      bodyLength += keep;
    }
    in.position(in.position() + (n - keep));
  }
}
