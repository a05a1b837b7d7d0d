package dev.keel.mcp.http;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Reads Server-Sent Events from a raw HTTP stream, one event at a time. */
final class SseClient implements AutoCloseable {

  /** One event: its fields, as sent. */
  record Event(String event, String id, String data, String retry) {}

  final RawHttp http;
  private RawHttp.Response head;
  private final StringBuilder buffer = new StringBuilder();
  private boolean ended;

  private SseClient(RawHttp http) {
    this.http = http;
  }

  /** Returns the response head, reading it on first use (a stream may answer late). */
  RawHttp.Response head() throws IOException {
    if (head == null) {
      http.timeout(15_000);
      head = http.readHead();
      // A stream the server ended before writing anything may come as an empty plain body.
      if ("0".equals(head.header("content-length"))) {
        ended = true;
      }
    }
    return head;
  }

  /** Sends a request and reads the response head. */
  static SseClient open(int port, String method, Map<String, String> headers, String body)
      throws IOException {
    RawHttp http = new RawHttp(port);
    StringBuilder req = new StringBuilder(method + " /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port
        + "\r\n");
    headers.forEach((k, v) -> req.append(k).append(": ").append(v).append("\r\n"));
    if (body != null) {
      req.append("Content-Length: ").append(body.getBytes(java.nio.charset.StandardCharsets.UTF_8)
          .length).append("\r\n");
    }
    req.append("\r\n");
    if (body != null) {
      req.append(body);
    }
    http.send(req.toString());
    return new SseClient(http);
  }

  /** Returns the next event, skipping comments; null when the stream ended or stayed silent. */
  Event next(int timeoutMillis) throws IOException {
    head();
    http.timeout(timeoutMillis);
    while (true) {
      int end = buffer.indexOf("\n\n");
      if (end >= 0) {
        String block = buffer.substring(0, end);
        buffer.delete(0, end + 2);
        Event event = parse(block);
        if (event != null) {
          return event;
        }
        continue;
      }
      if (ended) {
        return null;
      }
      String chunk;
      try {
        chunk = http.nextChunk();
      } catch (SocketTimeoutException e) {
        return null;
      }
      if (chunk == null) {
        ended = true;
      } else {
        buffer.append(chunk);
      }
    }
  }

  /** Returns every event until the stream ends or stays silent for {@code timeoutMillis}. */
  List<Event> drain(int timeoutMillis) throws IOException {
    List<Event> events = new ArrayList<>();
    Event e;
    while ((e = next(timeoutMillis)) != null) {
      events.add(e);
    }
    return events;
  }

  /**
   * Returns the head together with the body of an answer that is not a stream (an error with a
   * fixed length); for a stream the body is left unread and returned empty.
   */
  RawHttp.Response answer() throws IOException {
    RawHttp.Response h = head();
    if (h.header("content-length") == null) {
      return h;
    }
    return new RawHttp.Response(h.status(), h.headers(), http.body(h));
  }

  /** Drops the connection with a reset, as a crashed client does. */
  void abort() throws IOException {
    http.abort();
  }

  /**
   * Returns the next event, skipping comments, waiting at most {@code timeoutMillis} in all
   * (keep-alive comments do not extend the wait); null when the stream ended or nothing came in
   * time. Unlike {@link #next}, a silent stream is never taken for an ended one.
   */
  Event nextWithin(int timeoutMillis) throws IOException {
    head();
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (true) {
      int end = buffer.indexOf("\n\n");
      if (end >= 0) {
        String block = buffer.substring(0, end);
        buffer.delete(0, end + 2);
        Event event = parse(block);
        if (event != null) {
          return event;
        }
        continue;
      }
      if (ended || !readChunkBefore(deadline)) {
        return null;
      }
    }
  }

  /**
   * Reads until the server ends the stream or {@code timeoutMillis} pass, keeping the events for
   * {@link #nextWithin}; returns whether the stream ended.
   */
  boolean awaitEnd(int timeoutMillis) throws IOException {
    head();
    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
    while (!ended) {
      if (!readChunkBefore(deadline)) {
        return false;
      }
    }
    return true;
  }

  /** Returns the events still unread of a stream that ended (see {@link #awaitEnd}). */
  List<Event> remaining() throws IOException {
    List<Event> events = new ArrayList<>();
    Event e;
    while ((e = nextWithin(1)) != null) {
      events.add(e);
    }
    return events;
  }

  private boolean readChunkBefore(long deadline) throws IOException {
    long left = (deadline - System.nanoTime()) / 1_000_000L;
    if (left <= 0) {
      return false;
    }
    http.timeout((int) left);
    String chunk;
    try {
      chunk = http.nextChunkOrTimeout();
    } catch (SocketTimeoutException e) {
      return false;
    }
    if (chunk == null) {
      ended = true;
    } else {
      buffer.append(chunk);
    }
    return true;
  }

  /** True once the server ended the stream. */
  boolean ended() {
    return ended;
  }

  private static Event parse(String block) {
    String event = null;
    String id = null;
    String retry = null;
    StringBuilder data = null;
    for (String line : block.split("\n")) {
      if (line.startsWith(":")) {
        continue;
      }
      int colon = line.indexOf(':');
      String field = colon < 0 ? line : line.substring(0, colon);
      String value = colon < 0 ? "" : line.substring(colon + 1).replaceFirst("^ ", "");
      switch (field) {
        case "event" -> event = value;
        case "id" -> id = value;
        case "retry" -> retry = value;
        case "data" -> data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
        default -> { }
      }
    }
    if (data == null) {
      // no data field: nothing is dispatched (a bare retry, a comment)
      return null;
    }
    return new Event(event, id, data == null ? null : data.toString(), retry);
  }

  @Override
  public void close() throws IOException {
    http.close();
  }
}
