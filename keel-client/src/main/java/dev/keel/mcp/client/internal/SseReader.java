package dev.keel.mcp.client.internal;

import dev.keel.mcp.client.TransportException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads Server-Sent Events from an untrusted server, bounded: an event larger than the limit is
 * refused (not buffered further), lines are scanned once as they arrive, and an event id that is
 * too long or not printable ASCII is ignored rather than echoed back in a header later.
 */
public final class SseReader {

  /** The longest event id kept. */
  static final int MAX_EVENT_ID = 1024;

  /**
   * One dispatched event.
   *
   * @param event its type ({@code message} when absent)
   * @param id its id, or null
   * @param data its data
   */
  public record Event(String event, String id, String data) {}

  private final InputStream in;
  private final int maxEventBytes;
  private final byte[] buffer = new byte[8192];
  private int pos;
  private int limit;
  private String lastEventId;
  private Long retryMillis;
  // The last line ended in CR: an LF that comes next belongs to it. Remembered rather than read
  // ahead for, so a CR-ended event is dispatched without waiting for the server's next bytes.
  private boolean afterCr;

  /** Creates a reader refusing events over {@code maxEventBytes}. */
  public SseReader(InputStream in, int maxEventBytes) {
    this.in = in;
    this.maxEventBytes = maxEventBytes;
  }

  /** Returns the id of the last event that carried one (the resumption cursor), or null. */
  public String lastEventId() {
    return lastEventId;
  }

  /** Starts from a cursor an earlier stream left (a resumed stream without ids keeps it). */
  public void resumeFrom(String eventId) {
    if (lastEventId == null) {
      lastEventId = eventId;
    }
  }

  /** Returns the last {@code retry} the server sent, in milliseconds, or null. */
  public Long retryMillis() {
    return retryMillis;
  }

  /**
   * Returns the next event with data, or null when the stream ended.
   *
   * @throws TransportException when an event exceeds the limit
   */
  public Event next() throws IOException {
    String type = null;
    String id = null;
    StringBuilder data = null;
    int size = 0;
    while (true) {
      String line = readLine();
      if (line == null) {
        return null;
      }
      if (line.isEmpty()) {
        if (id != null) {
          lastEventId = id;
        }
        if (data != null) {
          return new Event(type == null ? "message" : type, id, data.toString());
        }
        type = null;
        id = null;
        size = 0;
        continue;
      }
      size += line.length();
      if (size > maxEventBytes) {
        throw new TransportException("an SSE event exceeded " + maxEventBytes + " bytes");
      }
      if (line.charAt(0) == ':') {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1);
      if (value.startsWith(" ")) {
        value = value.substring(1);
      }
      switch (field) {
        case "data" -> data = data == null ? new StringBuilder(value)
            : data.append('\n').append(value);
        case "event" -> type = value;
        case "id" -> id = acceptableId(value) ? value : id;
        case "retry" -> retryMillis = parseRetry(value, retryMillis);
        default -> { }
      }
    }
  }

  private static boolean acceptableId(String id) {
    if (id.length() > MAX_EVENT_ID || id.indexOf('\0') >= 0) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  private static Long parseRetry(String value, Long previous) {
    // ASCII digits only, as the event-stream rules say: Character.isDigit would take other
    // scripts' digits too, which parseLong accepts
    if (value.isEmpty() || value.length() > 9
        || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return previous;
    }
    return Long.parseLong(value);
  }

  /** Reads one line (CR, LF or CRLF ended), bounded by the event limit; null at the end. */
  private String readLine() throws IOException {
    ByteArrayOutputStream line = null;
    while (true) {
      if (pos == limit) {
        limit = in.read(buffer);
        pos = 0;
        if (limit <= 0) {
          limit = 0;
          return line == null ? null : line.toString(StandardCharsets.UTF_8);
        }
      }
      if (afterCr) {
        afterCr = false;
        if (buffer[pos] == '\n') {
          pos++;
          continue;
        }
      }
      int start = pos;
      while (pos < limit && buffer[pos] != '\n' && buffer[pos] != '\r') {
        pos++;
      }
      if (line == null) {
        line = new ByteArrayOutputStream(Math.max(16, pos - start));
      }
      line.write(buffer, start, pos - start);
      if (line.size() > maxEventBytes) {
        throw new TransportException("an SSE line exceeded " + maxEventBytes + " bytes");
      }
      if (pos < limit) {
        afterCr = buffer[pos++] == '\r';
        return line.toString(StandardCharsets.UTF_8);
      }
    }
  }
}
