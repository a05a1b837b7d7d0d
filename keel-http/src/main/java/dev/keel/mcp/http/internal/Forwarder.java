package dev.keel.mcp.http.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries a request for a session another node holds to that node, and its answer back, byte for
 * byte and as it is written (an SSE stream stays a stream). The node that holds the session runs
 * every check again on what it receives, with the client's own credentials: forwarding grants
 * nothing. A forwarded request is marked with {@link #HEADER} and never forwarded again, so two
 * nodes that disagree for a moment cannot bounce a request between them.
 *
 * <p>HTTP/1.1 over {@link ForwardConnections}: the request goes out in one write, the answer's
 * head is parsed here, and its body (by length, chunked, or to the end of the connection) is
 * copied to the client as it arrives, flushed whenever nothing more is waiting.
 */
final class Forwarder implements AutoCloseable {

  /** Marks a forwarded request; its value names the node that forwarded it. */
  static final String HEADER = "Keel-Forwarded-By";

  private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);
  private static final int MAX_HEAD = 64 * 1024;

  /** Headers that belong to one connection or are set here. */
  private static final Set<String> HOP = Set.of("host", "connection", "content-length", "expect",
      "upgrade", "transfer-encoding", "keep-alive", "te", "trailer", "proxy-connection",
      "proxy-authorization", "http2-settings", HEADER.toLowerCase(Locale.ROOT));
  /** Answer headers this node's own server sets. */
  private static final Set<String> OWN = Set.of("date", "server");

  private final String nodeId;
  /**
   * Its own threads: a forwarded GET stream holds one for as long as it is open. Virtual where
   * the JVM has them; on Java 17 platform threads, as many as {@link #slots} allow, never the
   * transport's bounded pool, which its keep-alives and hand-offs need.
   */
  private final java.util.concurrent.ExecutorService executor;
  private final java.util.concurrent.Semaphore slots;
  private final ForwardConnections connections = new ForwardConnections();

  Forwarder(String nodeId) {
    this.nodeId = nodeId;
    boolean virtual = dev.keel.mcp.server.transport.HandlerThreads.virtual();
    this.executor = virtual ? dev.keel.mcp.server.transport.HandlerThreads.newExecutor(
        "keel-forward") : java.util.concurrent.Executors.newCachedThreadPool(r -> {
          Thread t = new Thread(r, "keel-forward");
          t.setDaemon(true);
          return t;
        });
    this.slots = new java.util.concurrent.Semaphore(virtual ? 20_000 : 2_000);
  }

  /** Returns true when {@code req} was forwarded to this node by another one. */
  static boolean forwarded(HttpServletRequest req) {
    return req.getHeader(HEADER) != null;
  }

  /** What to do when the node that holds the session cannot be reached. */
  interface Unreachable {
    /** Answers the request some other way (the session is taken over, or is gone). */
    void answer() throws IOException;
  }

  /**
   * Forwards {@code req} (with {@code body}, null for none) to {@code target} on a thread of its
   * own. When the node cannot be reached at all, {@code unreachable} runs instead, on that
   * thread, with the response still open.
   */
  void forward(HttpServletRequest req, HttpServletResponse resp, AsyncContext async, URI target,
      byte[] body, Unreachable unreachable) {
    byte[] request = requestBytes(req, target, body);
    if (!slots.tryAcquire()) {
      try {
        resp.setHeader("Retry-After", "1");
        resp.sendError(503);
      } catch (IOException ignored) {
        // the client is gone
      }
      async.complete();
      return;
    }
    executor.execute(() -> {
      try {
        if (!relay(target, request, resp)) {
          unreachable.answer();
        }
      } catch (IOException | RuntimeException e) {
        LOG.debug("forwarding to {} ended: {}", target, e.toString());
      } finally {
        slots.release();
        try {
          async.complete();
        } catch (IllegalStateException ignored) {
          // already completed (the container timed the client out)
        }
      }
    });
  }

  /**
   * Forwards {@code req} to {@code target} and relays the answer on the calling thread, which
   * already holds the request in async mode; a node that cannot be reached gets 502.
   */
  void relayTo(HttpServletRequest req, HttpServletResponse resp, URI target, byte[] body)
      throws IOException {
    if (!relay(target, requestBytes(req, target, body), resp)) {
      resp.sendError(502);
    }
  }

  private byte[] requestBytes(HttpServletRequest req, URI target, byte[] body) {
    StringBuilder head = new StringBuilder(512);
    String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/"
        : target.getRawPath();
    head.append(req.getMethod()).append(' ').append(path);
    if (req.getQueryString() != null) {
      head.append('?').append(req.getQueryString());
    }
    head.append(" HTTP/1.1\r\nHost: ").append(target.getHost()).append(':')
        .append(ForwardConnections.port(target)).append("\r\n");
    for (String name : Collections.list(req.getHeaderNames())) {
      if (!HOP.contains(name.toLowerCase(Locale.ROOT))) {
        for (String value : Collections.list(req.getHeaders(name))) {
          if (value.indexOf('\r') < 0 && value.indexOf('\n') < 0) {
            head.append(name).append(": ").append(value).append("\r\n");
          }
        }
      }
    }
    head.append(HEADER).append(": ").append(nodeId).append("\r\n");
    head.append("Content-Length: ").append(body == null ? 0 : body.length).append("\r\n\r\n");
    byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
    if (body == null || body.length == 0) {
      return h;
    }
    byte[] all = new byte[h.length + body.length];
    System.arraycopy(h, 0, all, 0, h.length);
    System.arraycopy(body, 0, all, h.length, body.length);
    return all;
  }

  /**
   * Sends the request and copies the answer into {@code resp} as it arrives.
   *
   * @return false when the node could not be reached (nothing was written)
   */
  private boolean relay(URI target, byte[] request, HttpServletResponse resp) throws IOException {
    for (int attempt = 0; ; attempt++) {
      ForwardConnections.Connection c;
      try {
        c = connections.take(target);
      } catch (ConnectException | SocketTimeoutException e) {
        return false;
      }
      Head head;
      try {
        c.out.write(request);
        c.out.flush();
        head = Head.read(c.in);
      } catch (IOException e) {
        c.close();
        if (c.reused && attempt == 0) {
          // a kept-alive connection the other node had closed: nothing reached it, try a new one
          continue;
        }
        throw e;
      }
      boolean clean;
      try {
        clean = copy(head, c.in, resp);
      } catch (IOException e) {
        // the client went away, or the other node did: the connection is done either way
        c.close();
        throw e;
      }
      if (clean && !head.close) {
        connections.give(target, c);
      } else {
        c.close();
      }
      return true;
    }
  }

  /** Writes the head and copies the body; returns true when it ended at its framing's end. */
  private static boolean copy(Head head, InputStream in, HttpServletResponse resp)
      throws IOException {
    resp.setStatus(head.status);
    for (String[] h : head.headers) {
      String lower = h[0].toLowerCase(Locale.ROOT);
      if (!HOP.contains(lower) && !OWN.contains(lower)) {
        resp.addHeader(h[0], h[1]);
      }
    }
    OutputStream sink = resp.getOutputStream();
    if (head.contentLength >= 0) {
      resp.setContentLengthLong(head.contentLength);
      copyExactly(in, sink, head.contentLength);
      sink.flush();
      return true;
    }
    if (head.chunked) {
      while (true) {
        long size = chunkSize(in);
        if (size == 0) {
          // trailers (none from Keel) up to the empty line
          while (!line(in).isEmpty()) {
            // skip
          }
          sink.flush();
          return true;
        }
        copyExactly(in, sink, size);
        // flushed before the chunk's closing CRLF is read: Jetty sends that CRLF only with the
        // next chunk, which for an SSE stream may be minutes away
        if (in.available() == 0) {
          sink.flush();
        }
        line(in);
      }
    }
    byte[] buffer = new byte[8192];
    int n;
    while ((n = in.read(buffer)) >= 0) {
      sink.write(buffer, 0, n);
      if (in.available() == 0) {
        sink.flush();
      }
    }
    return false;
  }

  private static void copyExactly(InputStream in, OutputStream sink, long length)
      throws IOException {
    byte[] buffer = new byte[(int) Math.min(8192, Math.max(1, length))];
    long left = length;
    while (left > 0) {
      int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
      if (n < 0) {
        throw new EOFException("the other node closed the answer early");
      }
      sink.write(buffer, 0, n);
      left -= n;
      if (left > 0 && in.available() == 0) {
        sink.flush();
      }
    }
  }

  private static long chunkSize(InputStream in) throws IOException {
    String size = line(in);
    int semi = size.indexOf(';');
    try {
      return Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
    } catch (NumberFormatException e) {
      throw new IOException("bad chunk size from the other node: " + size);
    }
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(64);
    int c;
    while ((c = in.read()) >= 0) {
      if (c == '\n') {
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      if (b.size() >= MAX_HEAD) {
        throw new IOException("a line from the other node is too long");
      }
      b.write(c);
    }
    throw new EOFException("the other node closed the connection");
  }

  /** The status line and headers of an answer. */
  private static final class Head {
    int status;
    final java.util.List<String[]> headers = new java.util.ArrayList<>();
    long contentLength = -1;
    boolean chunked;
    boolean close;

    static Head read(InputStream in) throws IOException {
      Head h = new Head();
      String status = line(in);
      String[] parts = status.split(" ", 3);
      if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
        throw new IOException("not an HTTP/1.1 answer from the other node: " + status);
      }
      h.status = Integer.parseInt(parts[1]);
      h.close = parts[0].equals("HTTP/1.0");
      int size = 0;
      String line;
      while (!(line = line(in)).isEmpty()) {
        size += line.length();
        if (size > MAX_HEAD) {
          throw new IOException("the other node's answer head is too large");
        }
        int colon = line.indexOf(':');
        if (colon <= 0) {
          continue;
        }
        String name = line.substring(0, colon).trim();
        String value = line.substring(colon + 1).trim();
        String lower = name.toLowerCase(Locale.ROOT);
        if (lower.equals("content-length")) {
          h.contentLength = Long.parseLong(value);
        } else if (lower.equals("transfer-encoding")) {
          h.chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        } else if (lower.equals("connection")) {
          h.close = value.toLowerCase(Locale.ROOT).contains("close");
        }
        h.headers.add(new String[] {name, value});
      }
      if (h.chunked) {
        h.contentLength = -1;
      }
      return h;
    }
  }

  @Override
  public void close() {
    connections.close();
    executor.shutdownNow();
  }
}
