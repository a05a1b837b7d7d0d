package dev.keel.mcp.http.internal;

import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.http.spi.EventStore;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream of one POSTed request. It answers with plain JSON when the response is the first
 * and only thing to send, and switches to SSE as soon as anything must go first (progress, a log,
 * a request to the client) or the request stays silent for a keep-alive interval.
 *
 * <p>On a resumable session every SSE event is stored before it is written, so the connection
 * may drop (or be closed for polling) without losing anything: a GET with {@code Last-Event-ID}
 * picks the stream up again through {@link #reattach}. Without resumability a dropped connection
 * cancels the request. All state changes happen under one lock; the connection is completed at
 * most once.
 */
final class PostExchange implements RequestStream, AsyncListener, KeepAlive.Tickable {

  private static final Logger LOG = LoggerFactory.getLogger(PostExchange.class);
  private static final byte[] EMPTY = new byte[0];

  private final ReentrantLock lock = new ReentrantLock();
  private final TransportContext context;
  private final SessionStreams streams;
  private final boolean sseAccepted;
  private final boolean resumable;
  private final boolean modern;
  private final long startedNanos = System.nanoTime();
  private AsyncContext async;
  private SseWriter writer;
  private String streamId;
  private volatile boolean sse;
  private boolean finished;
  private volatile boolean held;
  private Runnable onGone;
  private Consumer<String> cancel;

  /**
   * Creates the stream of a request.
   *
   * @param streams the session's streams, or null when sessionless
   * @param resumable whether events are stored for resumption
   */
  PostExchange(TransportContext context, AsyncContext async, SessionStreams streams,
      boolean sseAccepted, boolean resumable, boolean modern) {
    this.context = context;
    this.async = async;
    this.streams = streams;
    this.sseAccepted = sseAccepted;
    this.modern = modern;
    this.resumable = resumable && streams != null && context.events() != null;
    // Its creator registers it as the async listener (BodyRead.listen): a context started to
    // read the body already has one, added while the container dispatched.
    context.probes().add(this);
  }

  /**
   * Gives the exchange the way to cancel its request, before the request starts: a dropped
   * connection that cannot be resumed (or, in the stateless era, a closed stream) cancels it.
   */
  void cancelWith(Consumer<String> cancelRequest) {
    lock.lock();
    try {
      this.cancel = cancelRequest;
    } finally {
      lock.unlock();
    }
  }

  /** Answers with a refusal the transport writes itself (503: busy) and ends the exchange. */
  void refuse(int status, byte[] body, String retryAfter) {
    lock.lock();
    try {
      if (finished) {
        return;
      }
      finished = true;
      untick();
      HttpServletResponse resp = (HttpServletResponse) async.getResponse();
      if (retryAfter != null) {
        resp.setHeader("Retry-After", retryAfter);
      }
      writePlain(resp, body, status, false);
      dropConnection();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean send(JsonRpcMessage message) {
    byte[] bytes = context.codec().encode(message);
    lock.lock();
    try {
      if (finished) {
        return false;
      }
      if (!sse) {
        if (!sseAccepted) {
          return false;
        }
        openSse();
      }
      deliver(bytes);
      return writer != null || resumable;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void closeForPolling() {
    lock.lock();
    try {
      if (!resumable || finished) {
        return;
      }
      if (!sse) {
        openSse();
      }
      if (writer != null) {
        try {
          writer.retry(context.retryMillis());
        } catch (IOException e) {
          LOG.debug("stream failed while closing for polling", e);
        }
        dropConnection();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean hold(Runnable whenGone) {
    lock.lock();
    try {
      if (finished) {
        return false;
      }
      held = true;
      onGone = whenGone;
      // A subscription idles: from now on the slow keep-alive is enough.
      context.probes().remove(this);
      context.keepAlive().add(this);
      if (!sse) {
        openSse();
      }
      return writer != null;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void release() {
    lock.lock();
    try {
      if (!finished) {
        finished = true;
        held = false;
        untick();
        dropConnection();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void finish(Optional<JsonRpcMessage> response) {
    byte[] bytes = response.map(r -> context.codec().encode(r)).orElse(null);
    int status = response.map(r -> statusOf(modern, r)).orElse(200);
    lock.lock();
    try {
      if (finished || (held && response.isEmpty())) {
        // a held stream (a subscription) outlives its handler
        return;
      }
      finished = true;
      untick();
      if (!sse) {
        finishPlain(bytes, status);
      } else {
        if (bytes != null) {
          deliver(bytes);
        }
        if (streams != null) {
          streams.requestStreamEnded(streamId, this);
        }
        dropConnection();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * The HTTP status of an answer sent as plain JSON, by era: a legacy answer is always 200; a
   * stateless error is 404 for an unknown method, 400 for a missing capability or a version or
   * header problem (spec 2026-07-28), else 200.
   */
  static int statusOf(boolean modern, JsonRpcMessage response) {
    if (!modern || !(response instanceof JsonRpcErrorResponse e)) {
      return 200;
    }
    return switch (e.error().code()) {
      case ErrorCodes.METHOD_NOT_FOUND -> 404;
      case ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY, ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION,
          ErrorCodes.HEADER_MISMATCH -> 400;
      default -> 200;
    };
  }

  private void finishPlain(byte[] bytes, int status) {
    writePlain((HttpServletResponse) async.getResponse(), bytes, status, sseAccepted);
    dropConnection();
  }

  /**
   * Writes an answer that nothing preceded: the response as plain JSON, or for a request that
   * gets none (it was cancelled) an empty stream or 204.
   */
  static void writePlain(HttpServletResponse resp, byte[] bytes, int status,
      boolean sseAccepted) {
    try {
      if (bytes != null) {
        resp.setStatus(status);
        resp.setContentType("application/json");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
      } else if (sseAccepted) {
        SseResponses.open(resp, null).flush();
      } else {
        resp.setStatus(204);
      }
    } catch (IOException e) {
      LOG.debug("client left before its response", e);
    }
  }

  /** Ends the exchange without a response (the session ended). */
  void abort() {
    lock.lock();
    try {
      if (!finished) {
        finished = true;
        untick();
        dropConnection();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Continues this stream on a new connection: replays what the client missed, then goes on
   * live (or ends, when the request already finished).
   */
  void reattach(AsyncContext newAsync, List<EventStore.StoredEvent> missed) {
    lock.lock();
    try {
      HttpServletResponse resp = (HttpServletResponse) newAsync.getResponse();
      SseWriter newWriter = SseResponses.open(resp, null);
      newWriter.flush();
      for (EventStore.StoredEvent event : missed) {
        if (event.data().length > 0) {
          newWriter.message(event.id(), event.data());
        }
      }
      if (finished) {
        newAsync.complete();
        return;
      }
      // The client resumed, so it holds the old connection dead: the new one takes over.
      dropConnection();
      async = newAsync;
      writer = newWriter;
      newAsync.addListener(this);
    } catch (IOException e) {
      LOG.debug("resumed stream failed", e);
      completeQuietly(newAsync);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean due(long nowNanos) {
    // A plain answer in the making only needs a tick once it is old enough to turn into SSE.
    return sse || held || nowNanos - startedNanos >= context.sseAfterNanos();
  }

  @Override
  public void tick() {
    // Held means a write is under way, so the stream is not silent and needs no keep-alive;
    // waiting for it would park a transport thread every probe for as long as a client that
    // does not read stalls that write (up to the write timeout).
    if (!lock.tryLock()) {
      return;
    }
    try {
      if (finished) {
        return;
      }
      if (!sse) {
        if (sseAccepted && System.nanoTime() - startedNanos >= (held
            ? context.keepAliveNanos() : context.sseAfterNanos())) {
          openSse();
        }
        return;
      }
      if (writer != null) {
        try {
          writer.keepAlive();
        } catch (IOException e) {
          connectionLost();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private void untick() {
    context.probes().remove(this);
    context.keepAlive().remove(this);
  }

  private void openSse() {
    sse = true;
    if (streams != null) {
      streamId = streams.newRequestStreamId();
      streams.requestStreamOpened(streamId, this);
    }
    try {
      writer = SseResponses.open((HttpServletResponse) async.getResponse(), null);
      if (resumable) {
        String id = streams.append(context.events(), streamId, EMPTY);
        writer.prime(id, context.retryMillis());
      } else {
        writer.keepAlive();
      }
    } catch (IOException e) {
      connectionLost();
    }
  }

  private void deliver(byte[] bytes) {
    String id = resumable ? streams.append(context.events(), streamId, bytes) : null;
    if (writer == null) {
      return;
    }
    try {
      writer.message(id, bytes);
    } catch (IOException e) {
      connectionLost();
    }
  }

  private void connectionLost() {
    dropConnection();
    if (held) {
      held = false;
      finished = true;
      untick();
      Runnable gone = onGone;
      onGone = null;
      if (gone != null) {
        gone.run();
      }
      return;
    }
    if (!resumable && !finished && cancel != null) {
      cancel.accept("client disconnected");
    }
  }

  private void dropConnection() {
    writer = null;
    AsyncContext current = async;
    async = null;
    if (current != null) {
      completeQuietly(current);
    }
  }

  private static void completeQuietly(AsyncContext ctx) {
    try {
      ctx.complete();
    } catch (IllegalStateException e) {
      // already completed by the container after an error
    }
  }

  @Override
  public void onComplete(AsyncEvent event) {
    // normal end, nothing to clean up
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    onError(event);
  }

  @Override
  public void onError(AsyncEvent event) {
    lock.lock();
    try {
      if (async != null && async == event.getAsyncContext()) {
        connectionLost();
      }
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    // not used
  }
}
