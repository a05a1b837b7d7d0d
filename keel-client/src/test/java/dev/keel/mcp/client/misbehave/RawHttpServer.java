package dev.keel.mcp.client.misbehave;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An HTTP/1.1 listener on 127.0.0.1 with byte-level control of the answer: it reads one request
 * per connection and hands the handler the raw output stream, then closes the connection. For
 * what {@link com.sun.net.httpserver.HttpServer} will not send (a malformed status line).
 */
final class RawHttpServer implements AutoCloseable {

  /** One request: its method line, headers (lower-case names) and body. */
  record Request(String line, Map<String, String> headers, String body) {}

  /** Writes the raw answer. */
  @FunctionalInterface
  interface Handler {
    void answer(Request request, OutputStream out) throws IOException;
  }

  private final ServerSocket socket;
  private final Handler handler;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "raw-http");
    t.setDaemon(true);
    return t;
  });

  RawHttpServer(Handler handler) throws IOException {
    this.handler = handler;
    this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    threads.execute(this::accept);
  }

  URI endpoint() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort() + "/mcp");
  }

  private void accept() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        threads.execute(() -> serve(s));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      s.setSoTimeout(10_000);
      InputStream in = s.getInputStream();
      String head = readHead(in);
      String[] lines = head.split("\r\n");
      Map<String, String> headers = new LinkedHashMap<>();
      for (int i = 1; i < lines.length; i++) {
        int colon = lines[i].indexOf(':');
        if (colon > 0) {
          headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
              lines[i].substring(colon + 1).trim());
        }
      }
      int length = Integer.parseInt(headers.getOrDefault("content-length", "0"));
      String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      OutputStream out = s.getOutputStream();
      handler.answer(new Request(lines[0], headers, body), out);
      out.flush();
    } catch (IOException | RuntimeException e) {
      // the client went away; nothing to do
    }
  }

  private static String readHead(InputStream in) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int matched = 0;
    byte[] end = {'\r', '\n', '\r', '\n'};
    int b;
    while (matched < 4 && (b = in.read()) >= 0) {
      head.write(b);
      matched = b == end[matched] ? matched + 1 : (b == '\r' ? 1 : 0);
    }
    return head.toString(StandardCharsets.ISO_8859_1);
  }

  /** Writes a complete JSON answer with extra header lines (each ending in CRLF). */
  static void json(OutputStream out, String extraHeaders, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    out.write(("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
        + bytes.length + "\r\n" + extraHeaders + "Connection: close\r\n\r\n")
        .getBytes(StandardCharsets.ISO_8859_1));
    out.write(bytes);
  }

  @Override
  public void close() throws IOException {
    socket.close();
    threads.shutdownNow();
  }
}
