package dev.keel.mcp.client.misbehave;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener on another port of 127.0.0.1 (another origin) that records every connection and
 * whatever bytes arrive on it: a redirect that was followed, with or without credentials, shows
 * up here.
 */
final class OtherOrigin implements AutoCloseable {

  private final ServerSocket socket;
  private final AtomicInteger connections = new AtomicInteger();
  private final List<String> received = new CopyOnWriteArrayList<>();
  private final Thread acceptor;

  OtherOrigin() throws IOException {
    socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    acceptor = new Thread(this::accept, "other-origin");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /** Returns the URL a misbehaving server redirects to. */
  String url() {
    return "http://127.0.0.1:" + socket.getLocalPort() + "/mcp";
  }

  /** Returns how many connections were accepted. */
  int connections() {
    return connections.get();
  }

  /** Returns what arrived, one string per connection. */
  List<String> received() {
    return List.copyOf(received);
  }

  private void accept() {
    while (!socket.isClosed()) {
      try (Socket s = socket.accept()) {
        connections.incrementAndGet();
        s.setSoTimeout(2000);
        InputStream in = s.getInputStream();
        byte[] head = in.readNBytes(1);
        byte[] rest = new byte[8192];
        int n = in.available() > 0 ? in.read(rest) : 0;
        received.add(new String(head, StandardCharsets.ISO_8859_1)
            + new String(rest, 0, Math.max(n, 0), StandardCharsets.ISO_8859_1));
        s.getOutputStream().write(("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\n"
            + "Connection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      } catch (IOException e) {
        // closed, or the peer went away
      }
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
    try {
      acceptor.join(5000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
