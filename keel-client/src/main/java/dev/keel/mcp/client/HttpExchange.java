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
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
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
  /** How much a request's stream may still carry after its answer before it is cut. */
  private static final int MAX_TRAILING_BYTES = 64 * 1024;
  /** How long a request's stream may stay open after its answer before it is cut. */
  private static final long TRAILING_MILLIS = 200;

  /**
   * Bounds of what an exchange reads.
   *
   * @param maxEventBytes the largest SSE event
   * @param maxBodyBytes the largest JSON body (after decompression)
   * @param retryFloor the shortest wait before resuming
   * @param retryCeiling the longest wait before resuming: a request stream whose server asks
   *     for more fails, a listening stream waits this long
   * @param maxReconnects how many resumptions before giving up
   */
  record Limits(int maxEventBytes, long maxBodyBytes, Duration retryFloor,
      Duration retryCeiling, int maxReconnects) {}

  private final StreamableHttpTransport transport;
  private final HttpClient http;
  private final JsonRpcCodec codec;
  private final Limits limits;
  private final ClientTransport.Receiver receiver;
  private final JsonRpcRequest call;
  private final String session;
  private volatile boolean aborted;
  // Opened by abort(): a reader waiting out the server's retry: must not outlive its caller.
  private final CountDownLatch abortSignal = new CountDownLatch(1);
  private volatile boolean answered;
  /** The first message on this exchange that was not JSON-RPC, described; null when none. */
  private String malformed;
  private int events;
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
    abortSignal.countDown();
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
      fail(new TransportException("the connection to the server broke before "
          + call.method() + " was answered: "
          + Text.safe(e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()),
          0, e));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(new TransportException("interrupted", 0, e));
    } catch (TransportException | InvalidServerResponseException e) {
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
      String location = response.headers().firstValue("Location").orElse(null);
      fail(new TransportException("the server redirected " + call.method() + " (HTTP " + status
          + (location == null ? "" : " to " + Text.safe(location))
          + "); redirects are never followed", status, null));
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
      answerJson(BoundedBody.readAll(in), status);
    } else {
      // a login page of a proxy, an error page: named, so the caller can tell it from a
      // broken MCP server
      fail(new TransportException("the server answered " + call.method() + " with HTTP "
          + status + " and Content-Type " + (type.isEmpty() ? "(none)" : Text.safe(type))
          + ", which is neither application/json nor text/event-stream", status, null));
    }
  }

  /** A JSON body is one message: anything but this request's response fails the request. */
  private void answerJson(byte[] bytes, int status) {
    JsonRpcMessage message;
    try {
      message = codec.decode(bytes);
    } catch (InvalidMessageException e) {
      throw new InvalidServerResponseException("the server's JSON answer to " + call.method()
          + " is not a JSON-RPC message: " + Text.safe(e.getMessage()));
    }
    boolean response = message instanceof JsonRpcResponse
        || message instanceof JsonRpcErrorResponse;
    if (response && !call.id().equals(message.id())) {
      fail(new TransportException("the server answered " + call.method() + " (id "
          + call.id() + ") with a response to id " + Text.safe(String.valueOf(message.id()))
          + ", not to this request; it was discarded", status, null));
      return;
    }
    deliver(message);
    if (!answered) {
      fail(new TransportException("the server's JSON answer to " + call.method()
          + " was not its response", status, null));
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
      if (answered && !aborted) {
        readToEnd(body);
      }
      if (answered || aborted || transport.isClosed()) {
        return;
      }
      String cursor = sse.lastEventId();
      if (cursor == null || reconnects >= limits.maxReconnects()) {
        fail(endedWithoutAnswer(cursor == null ? "" : " after " + reconnects
            + " resumptions (the most allowed)"));
        return;
      }
      reconnects++;
      Long asked = sse.retryMillis();
      if (asked != null && asked > limits.retryCeiling().toMillis()) {
        // Waiting that long would hold a reader thread for the server's sake while the caller
        // waits on; an unbounded retry: is a server's fault, so the request fails now.
        fail(new TransportException("the server asked to wait " + asked + " ms (retry:) before "
            + "resuming the " + call.method() + " response stream; the client waits at most "
            + limits.retryCeiling().toMillis() + " ms", 0, null));
        return;
      }
      if (pause(retryWait(sse))) {
        return;
      }
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
        fail(new TransportException("resuming the " + call.method() + " response stream "
            + "failed: HTTP " + resumed.statusCode(), resumed.statusCode(), null));
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

  /**
   * Reads what follows the answer on its stream, normally nothing but the end the server writes
   * right after it. Closing a response body before its end makes the JDK drop the connection, so
   * every call would pay for a new one; read to the end, the connection goes back to the pool (a
   * probe against a Keel server measured 2.1x the calls per second). A server that keeps the
   * stream open or goes on writing costs at most {@link #TRAILING_MILLIS} and
   * {@link #MAX_TRAILING_BYTES}: then the body is closed and the connection dropped, as before.
   * What arrives here belongs to no request and is not read as messages.
   */
  private void readToEnd(InputStream in) {
    if (in == null) {
      return;
    }
    ScheduledFuture<?> cut;
    try {
      cut = transport.streamEnds().schedule(this::closeBody, TRAILING_MILLIS,
          TimeUnit.MILLISECONDS);
    } catch (RejectedExecutionException e) {
      return; // the transport closed meanwhile: the body is closed below, as before
    }
    try {
      byte[] skipped = new byte[512];
      int left = MAX_TRAILING_BYTES;
      int n;
      while (left > 0 && (n = in.read(skipped, 0, Math.min(skipped.length, left))) >= 0) {
        left -= n;
      }
    } catch (IOException e) {
      // cut by the timer, or the server broke the connection: the answer was delivered already
    } finally {
      cut.cancel(false);
    }
  }

  /** The failure of a stream that ended without the answer, naming a malformed message seen. */
  private RuntimeException endedWithoutAnswer(String resumptions) {
    String what = "the " + call.method() + " response stream ended before the answer"
        + resumptions;
    if (malformed != null) {
      // the answer was most likely the message that could not be read
      return new InvalidServerResponseException(what + "; " + malformed);
    }
    return new TransportException(what, 0, null);
  }

  /** The wait the server asked for before resuming, never under the floor. */
  private long retryWait(SseReader sse) {
    return Math.max(limits.retryFloor().toMillis(),
        sse.retryMillis() == null ? 1000 : sse.retryMillis());
  }

  /** Waits, or less when aborted; returns true when aborted. */
  private boolean pause(long millis) throws InterruptedException {
    return abortSignal.await(millis, TimeUnit.MILLISECONDS) || aborted;
  }

  private void drain(SseReader sse) {
    try {
      SseReader.Event event;
      // A request's stream ends with its answer: reading on would hold the reader thread (and
      // the connection) for a server that never closes it, for messages that belong to no one.
      while (!aborted && !answered && (event = sse.next()) != null) {
        events++;
        if (event.event().equals("message") && !event.data().isEmpty()) {
          deliverEvent(event.data().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
      }
    } catch (IOException e) {
      LOG.debug("response stream broke: {}", Text.safe(String.valueOf(e.getMessage())));
    } catch (TransportException e) {
      if (call == null) {
        throw e;
      }
      throw new TransportException("the " + call.method() + " response stream: "
          + e.getMessage() + " (maxEventBytes)", e.httpStatus(), e);
    }
  }

  /** One event's message: one that is not JSON-RPC is skipped, and remembered for the error. */
  private void deliverEvent(byte[] bytes) {
    JsonRpcMessage message;
    try {
      message = codec.decode(bytes);
    } catch (InvalidMessageException e) {
      LOG.debug("ignored a malformed message from the server: {}",
          Text.safe(e.getMessage()));
      if (malformed == null) {
        malformed = "event " + events + " is not a JSON-RPC message: "
            + Text.safe(e.getMessage());
      }
      return;
    }
    deliver(message);
  }

  private void deliver(JsonRpcMessage message) {
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
        // No caller waits on this stream, so an excessive retry: is obeyed only up to the
        // ceiling rather than refused: the stream comes back, later.
        long asked = sse.retryMillis() == null ? 1000 : sse.retryMillis();
        if (pause(Math.max(limits.retryFloor().toMillis(),
            Math.min(asked, limits.retryCeiling().toMillis())))) {
          return;
        }
      } catch (IOException | RuntimeException e) {
        failures++;
        if (pauseQuietly(Math.min(30_000, 500L << failures))) {
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        closeBody();
      }
    }
  }

  /** Waits like {@link #pause}, keeping an interrupt for the caller; true when it should stop. */
  private boolean pauseQuietly(long millis) {
    try {
      return pause(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return true;
    }
  }
}
