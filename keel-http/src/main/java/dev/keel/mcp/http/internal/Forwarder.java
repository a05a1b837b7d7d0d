package dev.keel.mcp.http.internal;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries a request for a session another node holds to that node, and its answer back, byte for
 * byte and as it is written (an SSE stream stays a stream). The node that holds the session runs
 * every check again on what it receives, with the client's own credentials: forwarding grants
 * nothing. A forwarded request is marked with {@link #HEADER} and never forwarded again, so two
 * nodes that disagree for a moment cannot bounce a request between them.
 */
final class Forwarder {

  /** Marks a forwarded request; its value names the node that forwarded it. */
  static final String HEADER = "Keel-Forwarded-By";

  private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);

  /** Headers that belong to one connection, or that the JDK client sets itself. */
  private static final Set<String> HOP = Set.of("host", "connection", "content-length", "expect",
      "upgrade", "transfer-encoding", "keep-alive", "te", "trailer", "proxy-connection",
      "proxy-authorization", "http2-settings", HEADER.toLowerCase(Locale.ROOT));

  private final HttpClient client;
  private final String nodeId;
  private final Executor executor;

  Forwarder(String nodeId, Executor executor) {
    this.nodeId = nodeId;
    this.executor = executor;
    // HTTP/1.1: each forwarded stream its own connection, as the client's was; connecting is
    // bounded so a node that died is noticed in a second, not at the OS's timeout
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(1)).executor(executor).build();
  }

  /** Returns true when {@code req} was forwarded to this node by another one. */
  static boolean forwarded(HttpServletRequest req) {
    return req.getHeader(HEADER) != null;
  }

  /**
   * Forwards {@code req} (with {@code body}, null for none) to {@code target} on a thread of its
   * own. When the node cannot be reached at all, {@code unreachable} runs instead, on that
   * thread, with the response still open.
   */
  void forward(HttpServletRequest req, HttpServletResponse resp, AsyncContext async, URI target,
      byte[] body, Unreachable unreachable) {
    HttpRequest request = requestFor(req, target, body);
    executor.execute(() -> run(request, resp, async, unreachable));
  }

  /**
   * Forwards {@code req} to {@code target} and relays the answer on the calling thread, which
   * already holds the request in async mode; a node that cannot be reached gets a 502 answer.
   */
  void relayTo(HttpServletRequest req, HttpServletResponse resp, URI target, byte[] body)
      throws IOException {
    try {
      relay(client.send(requestFor(req, target, body), HttpResponse.BodyHandlers.ofInputStream()),
          resp);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ConnectException | HttpConnectTimeoutException e) {
      resp.sendError(502);
    }
  }

  private HttpRequest requestFor(HttpServletRequest req, URI target, byte[] body) {
    HttpRequest.Builder out = HttpRequest.newBuilder(target)
        .method(req.getMethod(), body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(body));
    for (String name : Collections.list(req.getHeaderNames())) {
      if (!HOP.contains(name.toLowerCase(Locale.ROOT))) {
        for (String value : Collections.list(req.getHeaders(name))) {
          out.header(name, value);
        }
      }
    }
    out.header(HEADER, nodeId);
    return out.build();
  }

  /** What to do when the node that holds the session cannot be reached. */
  interface Unreachable {
    /** Answers the request some other way (the session is taken over, or is gone). */
    void answer() throws IOException;
  }

  private void run(HttpRequest request, HttpServletResponse resp, AsyncContext async,
      Unreachable unreachable) {
    try {
      HttpResponse<InputStream> answer;
      try {
        answer = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
      } catch (ConnectException | HttpConnectTimeoutException e) {
        unreachable.answer();
        return;
      }
      relay(answer, resp);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      LOG.debug("forwarding to {} ended: {}", request.uri(), e.toString());
    } finally {
      try {
        async.complete();
      } catch (IllegalStateException ignored) {
        // already completed (the container timed the client out)
      }
    }
  }

  private static void relay(HttpResponse<InputStream> answer, HttpServletResponse resp)
      throws IOException {
    try (InputStream in = answer.body()) {
      resp.setStatus(answer.statusCode());
      answer.headers().map().forEach((name, values) -> {
        String lower = name.toLowerCase(Locale.ROOT);
        if (!HOP.contains(lower) && !lower.equals(":status")) {
          values.forEach(v -> resp.addHeader(name, v));
        }
      });
      answer.headers().firstValueAsLong("content-length").ifPresent(resp::setContentLengthLong);
      OutputStream sink = resp.getOutputStream();
      byte[] buffer = new byte[8192];
      int n;
      // flushed after every read: an SSE event reaches the client as the other node wrote it
      while ((n = in.read(buffer)) >= 0) {
        sink.write(buffer, 0, n);
        sink.flush();
      }
    }
  }
}
