package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.ErrorCodes;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the body of one authenticated POST without a container thread ever waiting on the
 * client (issue 14, finding 8: 200 slow clients held all 200 container threads in a blocking
 * read, and each pre-allocated the length it declared).
 *
 * <p>A body that came whole with its head (nearly every request) is taken by {@link
 * #arrivedWhole} into one array of exactly its size, is parsed on the calling thread and never
 * enters servlet async mode, so the common path costs what it did. A body that has not all
 * arrived goes into a buffer that grows only with the bytes received, each growth reserved
 * from the servlet's {@link BodyBudget}, and the rest is read in async mode through a
 * {@link ReadListener}: no thread waits between the client's packets. A read that passes the
 * byte limit is 413 after at most limit+1 bytes, one that finds the budget spent is 503, one
 * that outlives its timeout is 408, and each of these closes the connection (the rest of the
 * body is never read).
 *
 * <p>The portable {@code available()} decides the fast path: it counts the bytes a read returns
 * without blocking, which in Jetty is the body bytes that came in the head's network buffer.
 * A container that reports less only sends more bodies down the async path.
 *
 * <p>After the body, the request goes on exactly as before, on the thread that read the last
 * bytes. An exchange that needs async mode takes the read's async context over ({@link
 * #asyncContext}); otherwise {@link #done()} completes it once the answer is written.
 */
final class BodyRead implements ReadListener, AsyncListener, KeepAlive.Tickable {

  private static final Logger LOG = LoggerFactory.getLogger(BodyRead.class);
  private static final byte[] EMPTY = new byte[0];

  /**
   * What every body read of one servlet shares.
   *
   * @param maxBytes the largest body
   * @param timeoutNanos how long a body may take to arrive, from the end of its head
   * @param budget the bytes all bodies in progress may buffer between them
   * @param timer ticks the reads in progress, to time them out
   * @param errors writes refusals
   */
  record Limits(int maxBytes, long timeoutNanos, BodyBudget budget, KeepAlive timer,
      HttpErrors errors) {}

  /** Runs once with the whole body, on the thread that read its last bytes. */
  interface Continuation {
    void accept(BodyRead read, byte[] body) throws IOException;
  }

  private enum Outcome { COMPLETE, MORE, TOO_LARGE, OVER_BUDGET }

  private final HttpServletRequest req;
  private final HttpServletResponse resp;
  private final Limits limits;
  private final Continuation then;
  private final long declared;
  private final ReentrantLock lock = new ReentrantLock();
  private final BodyBuffer buffer;
  private ServletInputStream in;
  private boolean reading = true;
  private volatile long deadline;
  private AsyncContext async;
  private boolean adopted;
  private volatile AsyncListener listener;

  BodyRead(HttpServletRequest req, HttpServletResponse resp, Limits limits, Continuation then) {
    this.req = req;
    this.resp = resp;
    this.limits = limits;
    this.then = then;
    this.declared = req.getContentLengthLong();
    this.buffer = new BodyBuffer(limits.maxBytes(), declared, limits.budget());
  }

  /**
   * Starts reading, on the container thread inside {@code service()}: reads what has arrived,
   * calls the continuation before returning when that was all, else returns at once and reads
   * the rest as it comes.
   */
  void start() throws IOException {
    in = req.getInputStream();
    Outcome outcome;
    lock.lock();
    try {
      outcome = drain(false);
      if (outcome != Outcome.MORE) {
        reading = false;
      }
    } catch (IOException e) {
      reading = false;
      cleanUp();
      throw e;
    } finally {
      lock.unlock();
    }
    if (outcome != Outcome.MORE) {
      act(outcome);
      return;
    }
    async = req.startAsync();
    async.setTimeout(0);
    async.addListener(this);
    deadline = System.nanoTime() + limits.timeoutNanos();
    limits.timer().add(this);
    // From here on the container calls back (onDataAvailable, onAllDataRead) when bytes come.
    in.setReadListener(this);
  }

  /**
   * Returns the body when it came whole with its head (nearly every request), else null, in
   * which case a {@code BodyRead} must read it. The whole body is then in the container's
   * buffer: one array of exactly its size, no read that can wait, and no object of this class,
   * so the common path costs what it did before bodies could be slow.
   */
  static byte[] arrivedWhole(HttpServletRequest req) throws IOException {
    long declared = req.getContentLengthLong();
    if (declared == 0) {
      return EMPTY;
    }
    if (declared < 0) {
      return null;
    }
    ServletInputStream in = req.getInputStream();
    if (in.available() < declared) {
      return null;
    }
    byte[] body = new byte[(int) declared];
    int n = in.readNBytes(body, 0, body.length);
    return n == body.length ? body : Arrays.copyOf(body, n);
  }

  /**
   * Reads what can be read without waiting. Sync mode asks {@code available()}, async mode
   * {@code isReady()} (which also asks the container to call back when more comes).
   */
  private Outcome drain(boolean asyncMode) throws IOException {
    while (true) {
      if (buffer.complete()) {
        return Outcome.COMPLETE;
      }
      if (asyncMode ? !in.isReady() : in.available() <= 0) {
        return in.isFinished() ? Outcome.COMPLETE : Outcome.MORE;
      }
      if (!buffer.makeRoom()) {
        return Outcome.OVER_BUDGET;
      }
      int n = in.read(buffer.array(), buffer.size(), buffer.room());
      if (n < 0) {
        return Outcome.COMPLETE;
      }
      buffer.added(n);
      if (buffer.tooLarge()) {
        return Outcome.TOO_LARGE;
      }
    }
  }

  @Override
  public void onDataAvailable() {
    Outcome outcome;
    IOException failure = null;
    lock.lock();
    try {
      if (!reading) {
        return;
      }
      outcome = drain(true);
      if (outcome == Outcome.MORE) {
        return;
      }
      reading = false;
    } catch (IOException e) {
      reading = false;
      outcome = null;
      failure = e;
    } finally {
      lock.unlock();
    }
    if (failure != null) {
      failed(failure);
    } else {
      act(outcome);
    }
  }

  @Override
  public void onAllDataRead() {
    if (stop()) {
      act(Outcome.COMPLETE);
    }
  }

  @Override
  public void onError(Throwable failure) {
    if (stop()) {
      failed(failure);
    }
  }

  /** Ends reading; true for the one caller that ended it. */
  private boolean stop() {
    lock.lock();
    try {
      if (!reading) {
        return false;
      }
      reading = false;
      return true;
    } finally {
      lock.unlock();
    }
  }

  /** The client went away or broke its framing half way: there is nobody to answer. */
  private void failed(Throwable failure) {
    LOG.debug("request body failed: {}", failure.toString());
    cleanUp();
    completeQuietly();
  }

  @Override
  public boolean due(long nowNanos) {
    return nowNanos - deadline >= 0;
  }

  @Override
  public void tick() {
    if (!stop()) {
      return;
    }
    refuse(408, ErrorCodes.INVALID_REQUEST, "Request Timeout: the body did not arrive within "
        + Math.max(1, limits.timeoutNanos() / 1_000_000_000L) + " s");
  }

  /** Acts on how the read ended; {@code reading} is already false. */
  private void act(Outcome outcome) {
    switch (outcome) {
      case COMPLETE -> {
        byte[] body = takeBody();
        try {
          finish(body);
        } catch (IOException | RuntimeException e) {
          // Off service(), so the servlet's own catch cannot answer this one.
          LOG.error("unexpected failure serving an MCP request", e);
          internalError();
        }
      }
      case TOO_LARGE -> refuse(413, ErrorCodes.INVALID_REQUEST,
          "Payload Too Large: the limit is " + limits.maxBytes() + " bytes");
      case OVER_BUDGET -> {
        resp.setHeader("Retry-After", "1");
        refuse(503, ErrorCodes.SERVER_ERROR, "Server busy: too many request bodies in progress");
      }
      default -> throw new IllegalStateException("a read that goes on is not an outcome");
    }
  }

  /** Hands the body on, then ends the exchange unless an async stream took it over. */
  private void finish(byte[] body) throws IOException {
    cleanUp();
    then.accept(this, body);
    // Not on a failure: whoever catches it answers first, then completes.
    done();
  }

  private void refuse(int status, int code, String message) {
    cleanUp();
    try {
      if (!resp.isCommitted()) {
        // The rest of the body is never read: the connection cannot carry another request.
        resp.setHeader("Connection", "close");
        limits.errors().write(resp, status, code, message);
      }
    } catch (IOException | IllegalStateException e) {
      LOG.debug("client left before its refusal", e);
    }
    completeQuietly();
  }

  private void internalError() {
    try {
      if (!resp.isCommitted()) {
        resp.reset();
        limits.errors().write(resp, 500, ErrorCodes.INTERNAL_ERROR, "Internal error");
      }
    } catch (IOException | IllegalStateException e) {
      LOG.debug("client left before its error", e);
    }
    completeQuietly();
  }

  private byte[] takeBody() {
    lock.lock();
    try {
      return buffer.take();
    } finally {
      lock.unlock();
    }
  }

  /** Gives the buffer and its budget back and stops the timer; idempotent. */
  private void cleanUp() {
    limits.timer().remove(this);
    lock.lock();
    try {
      buffer.release();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns the async context of the exchange of {@code read}: the read's own when its body came
   * in async mode (then the exchange owns its completion), else a new one; {@code read} is null
   * for a body that came whole with its head.
   */
  static AsyncContext asyncContext(BodyRead read, HttpServletRequest req) {
    if (read != null && read.async != null) {
      read.adopted = true;
      return read.async;
    }
    AsyncContext started = req.startAsync();
    started.setTimeout(0);
    return started;
  }

  /**
   * Registers the listener of the exchange that took {@code context} over. The read's own
   * context already has a listener (the read), registered while the container dispatched: a
   * servlet may add one only then, so that one relays.
   */
  static void listen(BodyRead read, AsyncContext context, AsyncListener exchange) {
    if (read != null && context == read.async) {
      read.listener = exchange;
    } else {
      context.addListener(exchange);
    }
  }

  /** Ends the exchange if the body was read in async mode and no stream took it over. */
  void done() {
    if (async != null && !adopted) {
      completeQuietly();
    }
  }

  private void completeQuietly() {
    if (async == null) {
      return;
    }
    try {
      async.complete();
    } catch (IllegalStateException e) {
      // already completed, or the container gave up on the connection
    }
  }

  /**
   * Marks a refusal that leaves a body unread: the connection is closed after the answer, so
   * the unread bytes are never taken for the next request and the connection does not linger.
   */
  static void closeIfBodyUnread(HttpServletRequest req, HttpServletResponse resp) {
    if (req.getContentLengthLong() > 0 || req.getHeader("Transfer-Encoding") != null) {
      resp.setHeader("Connection", "close");
    }
  }

  @Override
  public void onComplete(AsyncEvent event) throws IOException {
    AsyncListener target = listener;
    if (target != null) {
      target.onComplete(event);
    }
  }

  @Override
  public void onTimeout(AsyncEvent event) throws IOException {
    AsyncListener target = listener;
    if (target != null) {
      target.onTimeout(event);
    }
  }

  @Override
  public void onError(AsyncEvent event) throws IOException {
    AsyncListener target = listener;
    if (target != null) {
      target.onError(event);
    } else {
      onError(event.getThrowable() == null ? new IOException("connection failed")
          : event.getThrowable());
    }
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    // not used: the context is never restarted
  }
}
