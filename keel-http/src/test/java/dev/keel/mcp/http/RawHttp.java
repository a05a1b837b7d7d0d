package dev.keel.mcp.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A deliberately small HTTP/1.1 client over a raw socket, so that tests control every header
 * (Host, Origin, Content-Length) and can stop sending a body half way.
 */
final class RawHttp implements AutoCloseable {

  /** A response: status, headers (lower-case names) and the body read so far. */
  record Response(int status, Map<String, String> headers, String body) {
    String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }
  }

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawHttp(int port) throws IOException {
    this(connect(port));
  }

  private RawHttp(Socket socket) throws IOException {
    this.socket = socket;
    in = socket.getInputStream();
    out = socket.getOutputStream();
  }

  private static Socket connect(int port) throws IOException {
    Socket socket = new Socket();
    socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
    socket.setSoTimeout(10_000);
    return socket;
  }

  /** Reads responses from a connection the caller writes to itself. */
  static RawHttp over(Socket socket) throws IOException {
    return new RawHttp(socket);
  }

  /** Sends raw bytes. */
  RawHttp send(String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
    return this;
  }

  /** Sends a request with a body and {@code Connection: close}. */
  static Response exchange(int port, String method, String path, Map<String, String> headers,
      String body) throws IOException {
    try (RawHttp http = new RawHttp(port)) {
      StringBuilder req = new StringBuilder();
      req.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
      Map<String, String> all = new LinkedHashMap<>();
      all.put("Host", "127.0.0.1:" + port);
      all.put("Connection", "close");
      all.putAll(headers);
      byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
      if (bytes != null && !all.containsKey("Content-Length")
          && !all.containsKey("Transfer-Encoding")) {
        all.put("Content-Length", Integer.toString(bytes.length));
      }
      all.forEach((k, v) -> {
        if (v != null) {
          req.append(k).append(": ").append(v).append("\r\n");
        }
      });
      req.append("\r\n");
      http.send(req.toString());
      if (bytes != null) {
        http.out.write(bytes);
        http.out.flush();
      }
      return http.readResponse(Long.MAX_VALUE);
    }
  }

  /** Reads the status line and headers only, leaving the body to {@link #nextChunk()}. */
  Response readHead() throws IOException {
    String statusLine = readLine();
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    String line;
    while (!(line = readLine()).isEmpty()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    return new Response(status, headers, "");
  }

  /** Reads the next chunk of a chunked body; null at its end or when the connection closed. */
  String nextChunk() throws IOException {
    String size;
    try {
      do {
        size = readLine();
      } while (size.isEmpty());
    } catch (IOException e) {
      return null;
    }
    int n = Integer.parseInt(size.split(";")[0].trim(), 16);
    if (n == 0) {
      return null;
    }
    // The CRLF closing a chunk may come only with the next one (Jetty sends it then), so it is
    // skipped as an empty line before the next size rather than waited for here.
    return new String(in.readNBytes(n), StandardCharsets.UTF_8);
  }

  /**
   * Reads the next chunk of a chunked body: null at its end or when the connection closed, and
   * {@link SocketTimeoutException} when nothing came in time (a silent stream is not an ended
   * one).
   */
  String nextChunkOrTimeout() throws IOException {
    String size;
    try {
      do {
        size = readLine();
      } while (size.isEmpty());
    } catch (SocketTimeoutException e) {
      throw e;
    } catch (IOException e) {
      return null;
    }
    int n = Integer.parseInt(size.split(";")[0].trim(), 16);
    if (n == 0) {
      return null;
    }
    return new String(in.readNBytes(n), StandardCharsets.UTF_8);
  }

  /** Reads a response; for a stream, stops after {@code maxBodyBytes} or a read timeout. */
  Response readResponse(long maxBodyBytes) throws IOException {
    String statusLine = readLine();
    int status = Integer.parseInt(statusLine.split(" ")[1]);
    Map<String, String> headers = new LinkedHashMap<>();
    String line;
    while (!(line = readLine()).isEmpty()) {
      int colon = line.indexOf(':');
      headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT),
          line.substring(colon + 1).trim());
    }
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    try {
      if (headers.containsKey("content-length")) {
        int n = Integer.parseInt(headers.get("content-length"));
        body.write(in.readNBytes(n));
      } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
        readChunked(body, maxBodyBytes);
      } else if (status != 204 && status != 202 && status != 304) {
        int b;
        while (body.size() < maxBodyBytes && (b = in.read()) >= 0) {
          body.write(b);
        }
      }
    } catch (SocketTimeoutException e) {
      // a stream that stays open: return what arrived
    }
    return new Response(status, headers, body.toString(StandardCharsets.UTF_8));
  }

  private void readChunked(ByteArrayOutputStream body, long max) throws IOException {
    while (body.size() < max) {
      String size = readLine();
      if (size.isEmpty()) {
        continue;
      }
      int n = Integer.parseInt(size.split(";")[0].trim(), 16);
      if (n == 0) {
        readLine();
        return;
      }
      body.write(in.readNBytes(n));
      readLine();
    }
  }

  private String readLine() throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0 && b != '\n') {
      if (b != '\r') {
        line.write(b);
      }
    }
    if (b < 0 && line.size() == 0) {
      throw new IOException("connection closed");
    }
    return line.toString(StandardCharsets.ISO_8859_1);
  }

  /**
   * Sends a request on this connection without asking to close it (HTTP/1.1 keep-alive) and
   * reads a response with a fixed length; the connection stays usable for the next request.
   */
  Response request(String method, String path, Map<String, String> headers, String body)
      throws IOException {
    StringBuilder req = new StringBuilder();
    req.append(method).append(' ').append(path).append(" HTTP/1.1\r\n");
    Map<String, String> all = new LinkedHashMap<>();
    all.put("Host", "127.0.0.1:" + socket.getPort());
    all.putAll(headers);
    byte[] bytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    all.put("Content-Length", Integer.toString(bytes.length));
    all.forEach((k, v) -> {
      if (v != null) {
        req.append(k).append(": ").append(v).append("\r\n");
      }
    });
    req.append("\r\n");
    send(req.toString());
    out.write(bytes);
    out.flush();
    return readResponse(Long.MAX_VALUE);
  }

  /** Reads the fixed-length body that follows a head read with {@link #readHead()}. */
  String body(Response head) throws IOException {
    String length = head.header("content-length");
    if (length == null) {
      return "";
    }
    return new String(in.readNBytes(Integer.parseInt(length)), StandardCharsets.UTF_8);
  }

  /**
   * Reads until the peer closes the connection and returns what came; a read timeout (the
   * socket's, ten seconds unless set) fails, since a connection left open is what a caller
   * checks against.
   */
  String readToEnd() throws IOException {
    return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
  }

  /** Drops the connection with a reset (no orderly close), as a crashed or killed peer does. */
  void abort() throws IOException {
    try {
      socket.setSoLinger(true, 0);
    } finally {
      socket.close();
    }
  }

  /** Sets how long reads wait. */
  void timeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}
