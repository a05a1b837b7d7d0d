package dev.keel.mcp.http.internal;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Kept-alive HTTP/1.1 connections to the other nodes of a cluster, one pool per node. A
 * connection is taken for one request and its whole answer, and given back only when the answer
 * ended cleanly; one idle longer than {@link #MAX_IDLE_NANOS} is closed rather than reused (the
 * other node's server closes idle connections after 30 s).
 *
 * <p>Plain sockets on the forwarding thread, not an HTTP client library: the JDK's client spent
 * about 2 ms per loopback request here (thread hand-offs at every step) and Jetty's as much, while
 * a blocking socket on the calling thread answers in a quarter of a millisecond, and forwarding
 * needs nothing a client library adds (no redirects, cookies, decoding or retries).
 */
final class ForwardConnections implements AutoCloseable {

  private static final long MAX_IDLE_NANOS = 10_000_000_000L;
  private static final int CONNECT_TIMEOUT_MS = 1000;
  private static final int MAX_IDLE_PER_NODE = 256;

  /** One connection: its streams, and when it was last given back. */
  static final class Connection implements AutoCloseable {
    final Socket socket;
    final InputStream in;
    final OutputStream out;
    /** True once it served an answer: the other node may have closed it since. */
    boolean reused;
    long idleSince;

    private Connection(Socket socket) throws IOException {
      this.socket = socket;
      this.in = new BufferedInputStream(socket.getInputStream(), 16 * 1024);
      this.out = socket.getOutputStream();
    }

    @Override
    public void close() {
      try {
        socket.close();
      } catch (IOException ignored) {
        // gone already
      }
    }
  }

  private final Map<String, Deque<Connection>> idle = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** Returns an idle connection to {@code target}'s node, or a new one. */
  Connection take(URI target) throws IOException {
    Deque<Connection> pool = idle.get(key(target));
    if (pool != null) {
      while (true) {
        Connection c;
        synchronized (pool) {
          c = pool.pollLast();
        }
        if (c == null) {
          break;
        }
        if (System.nanoTime() - c.idleSince < MAX_IDLE_NANOS && !c.socket.isClosed()) {
          return c;
        }
        c.close();
      }
    }
    Socket socket = new Socket();
    socket.setTcpNoDelay(true);
    socket.connect(new InetSocketAddress(target.getHost(), port(target)), CONNECT_TIMEOUT_MS);
    return new Connection(socket);
  }

  /** Gives back a connection whose answer ended cleanly. */
  void give(URI target, Connection c) {
    if (closed) {
      c.close();
      return;
    }
    c.idleSince = System.nanoTime();
    c.reused = true;
    Deque<Connection> pool = idle.computeIfAbsent(key(target), k -> new ArrayDeque<>());
    synchronized (pool) {
      if (pool.size() < MAX_IDLE_PER_NODE) {
        pool.addLast(c);
        return;
      }
    }
    c.close();
  }

  static int port(URI target) {
    return target.getPort() > 0 ? target.getPort() : 80;
  }

  private static String key(URI target) {
    return target.getHost() + ":" + port(target);
  }

  @Override
  public void close() {
    closed = true;
    for (Deque<Connection> pool : idle.values()) {
      synchronized (pool) {
        pool.forEach(Connection::close);
        pool.clear();
      }
    }
  }
}
