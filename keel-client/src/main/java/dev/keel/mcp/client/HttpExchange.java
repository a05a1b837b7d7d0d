package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.BoundedBody;
import dev.keel.mcp.client.internal.SseReader;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonrpc.InvalidMessageException;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request's HTTP exchange (or the session's listening stream): reads the JSON or SSE answer,
 * delivers each message, resumes a broken stream with {@code Last-Event-ID}, and turns HTTP
 * failures into what the client understands (an expired session, a JSON-RPC error, a transport
 * failure). Everything read is bounded; nothing the server sends is trusted.
 */
final class HttpExchange implements ClientTransport.Exchange {

  private static final Logger LOG = LoggerFactory.getLogger(HttpExchange.class);
  private static final int MAX_ERROR_BODY = 64 * 1024;

  /**
   * Bounds of what an exchange reads.
   *
   * @param maxEventBytes the largest SSE event
   * @param maxBodyBytes the largest JSON body (after decompression)
   * @param retryFloor the shortest wait before resuming
   * @param maxReconnects how many resumptions before giving up
   */
  record Limits(int maxEventBytes, long maxBodyBytes, Duration retryFloor,
      int maxReconnects) {}

  private final StreamableHttpTransport transport;
  private final HttpClient http;
  private final JsonRpcCodec codec;
  private final Limits limits;
  private final ClientTransport.Receiver receiver;
  private final JsonRpcRequest call;
  private final String session;
  private volatile boolean aborted;
  private volatile boolean answered;
  private volatile InputStream body;
  /** The request while its response headers are awaited; cancelling it closes the connection. */
  private volatile CompletableFuture<HttpResponse<InputStream>> sending;

  /** Creates the exchange of a request. */
  HttpExchange(StreamableHttpTransport transport, HttpClient http, JsonRpcCodec codec,
      Limits limits, ClientTransport.Receiver receiver, JsonRpcRequest call, String session,
      long epoch) {
    this.transport = transport;
    this.http = http;
    this.codec = codec;
    this.limits = limits;
    this.receiver = receiver;
    this.call = call;
    this.session = session;
  }

  /** Creates the exchange of a session's listening stream. */
  static HttpExchange listening(StreamableHttpTransport transport, HttpClient http,
      JsonRpcCodec codec, Limits limits, ClientTransport.Receiver receiver, String session) {
    return new HttpExchange(transport, http, codec, limits, receiver, null, session, 0);
  }

  @Override
  public void abort() {
    aborted = true;
    // Before the response headers there is no body to close. Cancelling the send (JDK 16+)
    // drops the connection, which is how a stateless server learns the request is cancelled:
    // without it the request would run on until the server answered.
    CompletableFuture<HttpResponse<InputStream>> pending = sending;
    if (pending != null) {
      pending.cancel(true);
    }
    InputStream open = body;
    if (open != null) {
      try {
        open.close();
      } catch (IOException ignored) {
        // closing a broken stream: nothing more to do
      }
    }
  }

  /** Posts the request and reads its answer; runs on a client thread. */
  void run(HttpRequest request) {
    try {
      HttpResponse<InputStream> response = send(request);
      if (response == null) {
        return;
      }
      // the server asked for a token, or a wider one (step-up): sent again with it, at most
      // twice, so that a first token and then its step-up fit and nothing loops
      for (int attempt = 0; attempt < 2; attempt++) {
        HttpRequest again = transport.reauthorized(request, response);
        if (again == null) {
          break;
        }
        response.body().close();
        request = again;
        response = send(again);
        if (response == null) {
          return;
        }
      }
      body = response.body();
      if (aborted) {
        body.close();
        return;
      }
      answer(response);
    } catch (IOException e) {
      fail(new TransportException("the exchange with the server broke: "
          + Text.safe(e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()),
          0, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(new TransportException("interrupted", 0, e));
    } catch (TransportException e) {
      fail(e);
    } catch (RuntimeException e) {
      // Never let a reader thread die with a stack trace on the console: the request fails.
      fail(new TransportException("the exchange with the server failed: "
          + Text.safe(String.valueOf(e.getMessage())), 0, e));
    } finally {
      closeBody();
    }
  }

  /** Sends the request and waits for the response headers; null when aborted before them. */
  private HttpResponse<InputStream> send(HttpRequest request)
      throws IOException, InterruptedException {
    CompletableFuture<HttpResponse<InputStream>> pending =
        http.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream());
    sending = pending;
    if (aborted) {
      pending.cancel(true);
    }
    try {
      return pending.get();
    } catch (CancellationException e) {
      return null;
    } catch (InterruptedException e) {
      pending.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      if (aborted || e.getCause() instanceof CancellationException) {
        // cancelled by abort(): the JDK reports it as a failure of the exchange
        return null;
      }
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IOException(e.getCause());
    } finally {
      sending = null;
    }
  }

  private void answer(HttpResponse<InputStream> response) throws IOException,
      InterruptedException {
    int status = response.statusCode();
    if (status == 404 && session != null) {
      transport.sessionExpired(session);
      fail(new SessionExpiredException());
      return;
    }
    if (status >= 300 && status < 400) {
      fail(new TransportException("the server redirected (HTTP " + status + "); redirects are "
          + "never followed", status, null));
      return;
    }
    if (status >= 400) {
      failWithStatus(response, status);
      return;
    }
    if (call.method().equals("initialize")) {
      response.headers().firstValue("Mcp-Session-Id").ifPresent(transport::adoptSession);
    }
    String type = response.headers().firstValue("Content-Type").orElse("")
        .toLowerCase(Locale.ROOT);
    InputStream in = BoundedBody.open(response.body(),
        response.headers().firstValue("Content-Encoding").orElse(null),
        type.startsWith("text/event-stream") ? Long.MAX_VALUE : limits.maxBodyBytes());
    if (type.startsWith("text/event-stream")) {
      readStream(in);
    } else if (type.startsWith("application/json")) {
      deliver(BoundedBody.readAll(in));
      if (!answered) {
        fail(new TransportException("the server's JSON answer was not the response", status,
            null));
      }
    } else {
      fail(new TransportException("the server answered a request with HTTP " + status
          + " and no JSON-RPC message", status, null));
    }
  }

  /**
   * An HTTP error: a JSON-RPC error body is the answer (a stateless server says -32022 or
   * -32601 this way), except for statuses that mean "no verdict" (401, 403, 5xx).
   */
  private void failWithStatus(HttpResponse<InputStream> response, int status)
      throws IOException {
    byte[] bytes = response.body().readNBytes(MAX_ERROR_BODY);
    boolean verdict = status != 401 && status != 403 && status < 500;
    if (verdict) {
      try {
        JsonRpcMessage message = codec.decode(bytes);
        if (message instanceof JsonRpcErrorResponse e) {
          receiver.receive(new JsonRpcErrorResponse(call.id(), e.error()));
          answered = true;
          return;
        }
      } catch (InvalidMessageException e) {
        // not JSON-RPC: reported as a plain HTTP failure below
      }
    }
    fail(new TransportException("the server answered HTTP " + status, status, null));
  }

  private void readStream(InputStream in) throws IOException, InterruptedException {
    SseReader sse = new SseReader(in, limits.maxEventBytes());
    int reconnects = 0;
    while (true) {
      drain(sse);
      if (answered || aborted || transport.isClosed()) {
        return;
      }
      String cursor = sse.lastEventId();
      if (cursor == null || reconnects++ >= limits.maxReconnects()) {
        fail(new TransportException("the response stream ended before the answer", 0, null));
        return;
      }
      Thread.sleep(Math.max(limits.retryFloor().toMillis(),
          sse.retryMillis() == null ? 1000 : sse.retryMillis()));
      HttpResponse<InputStream> resumed = send(transport.listenRequest(session, cursor));
      if (resumed == null) {
        return;
      }
      closeBody();
      body = resumed.body();
      if (resumed.statusCode() == 404 && session != null) {
        transport.sessionExpired(session);
        fail(new SessionExpiredException());
        return;
      }
      if (resumed.statusCode() != 200) {
        fail(new TransportException("resuming the stream failed: HTTP "
            + resumed.statusCode(), resumed.statusCode(), null));
        return;
      }
      SseReader next = new SseReader(BoundedBody.open(resumed.body(),
          resumed.headers().firstValue("Content-Encoding").orElse(null), Long.MAX_VALUE),
          limits.maxEventBytes());
      String previousCursor = sse.lastEventId();
      sse = next;
      if (sse.lastEventId() == null) {
        sse.resumeFrom(previousCursor);
      }
    }
  }

  private void drain(SseReader sse) {
    try {
      SseReader.Event event;
      while (!aborted && (event = sse.next()) != null) {
        if (event.event().equals("message") && !event.data().isEmpty()) {
          deliver(event.data().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      LOG.debug("response stream broke: {}", Text.safe(String.valueOf(e.getMessage())));
    }
  }

  private void deliver(byte[] bytes) {
    JsonRpcMessage message;
    try {
      message = codec.decode(bytes);
    } catch (InvalidMessageException e) {
      LOG.debug("ignored a malformed message from the server: {}",
          Text.safe(e.getMessage()));
      return;
    }
    if (message instanceof JsonRpcResponse || message instanceof JsonRpcErrorResponse) {
      // A stream carries the answer to its own request only; any other id is unsolicited and
      // must not complete a request waiting elsewhere.
      if (call == null || !call.id().equals(message.id())) {
        LOG.debug("discarded a response with an unsolicited id on a stream");
        return;
      }
      answered = true;
    }
    receiver.receive(message);
  }

  private void fail(RuntimeException failure) {
    if (aborted || answered || call == null) {
      return;
    }
    receiver.failed(call.id(), failure);
  }

  private void closeBody() {
    InputStream open = body;
    if (open != null) {
      try {
        open.close();
      } catch (IOException ignored) {
        // already broken
      }
    }
  }

  /**
   * Runs the listening stream until it is aborted or the server has none: messages unrelated to
   * requests, resumed with {@code Last-Event-ID} when the server closes it.
   */
  void runListening() {
    String cursor = null;
    int failures = 0;
    while (!aborted && !transport.isClosed() && failures < 5) {
      try {
        HttpResponse<InputStream> response = send(transport.listenRequest(session, cursor));
        if (response == null) {
          return;
        }
        body = response.body();
        int status = response.statusCode();
        if (status != 200) {
          closeBody();
          LOG.debug("no listening stream: HTTP {}", status);
          return;
        }
        SseReader sse = new SseReader(BoundedBody.open(response.body(),
            response.headers().firstValue("Content-Encoding").orElse(null), Long.MAX_VALUE),
            limits.maxEventBytes());
        drain(sse);
        cursor = sse.lastEventId() != null ? sse.lastEventId() : cursor;
        failures = 0;
        Thread.sleep(Math.max(limits.retryFloor().toMillis(),
            sse.retryMillis() == null ? 1000 : sse.retryMillis()));
      } catch (IOException | RuntimeException e) {
        failures++;
        sleepQuietly(Math.min(30_000, 500L << failures));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        closeBody();
      }
    }
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
