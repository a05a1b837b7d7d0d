package dev.keel.mcp.client.internal;

import dev.keel.mcp.client.OAuthUserStep;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * The RFC 8252 loopback redirect: a listener on 127.0.0.1 and an ephemeral port, opened when a
 * flow asks for its redirect URI and closed when the redirect arrived or the time is up. It
 * reads one request line per connection (bounded), answers only {@code GET /callback}, and tells
 * the browser nothing about the outcome beyond "you may close this window".
 */
public final class LoopbackRedirect implements OAuthUserStep {

  private static final int MAX_LINE = 8 * 1024;
  private static final String PATH = "/callback";

  private final Consumer<URI> show;
  private final Duration timeout;
  private ServerSocket socket;

  /** Creates it; nothing listens until {@link #redirectUri()}. */
  public LoopbackRedirect(Consumer<URI> show, Duration timeout) {
    this.show = Objects.requireNonNull(show, "show");
    this.timeout = Objects.requireNonNull(timeout, "timeout");
  }

  @Override
  public synchronized URI redirectUri() {
    try {
      if (socket == null || socket.isClosed()) {
        socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
      }
      return URI.create("http://127.0.0.1:" + socket.getLocalPort() + PATH);
    } catch (IOException e) {
      throw new IllegalStateException("cannot listen on 127.0.0.1 for the redirect: "
          + e.getMessage(), e);
    }
  }

  @Override
  public synchronized URI authorize(URI authorizationRequest) {
    URI redirect = redirectUri();
    show.accept(authorizationRequest);
    Instant deadline = Instant.now().plus(timeout);
    try (ServerSocket listening = socket) {
      while (true) {
        long left = Duration.between(Instant.now(), deadline).toMillis();
        if (left <= 0) {
          throw new IllegalStateException("no redirect came back within " + timeout);
        }
        listening.setSoTimeout((int) Math.min(left, Integer.MAX_VALUE));
        try (Socket peer = listening.accept()) {
          peer.setSoTimeout(5_000);
          String target = requestTarget(peer.getInputStream());
          boolean ours = target != null && (target.equals(PATH) || target.startsWith(PATH + "?"));
          answer(peer.getOutputStream(), ours);
          if (ours) {
            return URI.create("http://127.0.0.1:" + redirect.getPort() + target);
          }
        } catch (SocketTimeoutException e) {
          // the deadline, or a peer that sent nothing: the loop decides
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("the redirect listener failed: " + e.getMessage(), e);
    } finally {
      socket = null;
    }
  }

  /** Returns the target of a {@code GET} request line, or null. */
  private static String requestTarget(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (line.length() >= MAX_LINE) {
        return null;
      }
      line.append((char) c);
    }
    String[] parts = line.toString().trim().split(" ");
    if (parts.length != 3 || !parts[0].equals("GET") || !parts[1].startsWith("/")) {
      return null;
    }
    return parts[1];
  }

  private static void answer(OutputStream out, boolean ours) throws IOException {
    String body = ours ? "<!doctype html><title>Keel</title><p>Authorization received. "
        + "You may close this window.</p>" : "Not found";
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String head = (ours ? "HTTP/1.1 200 OK" : "HTTP/1.1 404 Not Found")
        + "\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store"
        + "\r\nConnection: close\r\nContent-Length: " + bytes.length + "\r\n\r\n";
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(bytes);
    out.flush();
  }
}
