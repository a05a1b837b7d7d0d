package dev.keel.mcp.test;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.SessionChangedException;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.Principal;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The client half of the in-memory transport pair: a {@link ClientTransport} for a
 * {@code McpClient}, connected to an {@link InMemoryServerTransport} in the same JVM. Get one
 * from {@link InMemoryServerTransport#connect()}.
 *
 * <p>It keeps the transport contract of the HTTP and stdio transports: the session epoch moves
 * when a legacy session starts, ends or is replaced; writes pinned to an ended session are
 * refused with {@link SessionChangedException} having written nothing; an ended session makes
 * the next request fail with {@code SessionExpiredException}, so the client starts a new one.
 * Aborting a stateless request's exchange closes its stream, which cancels it at the server.
 *
 * <pre>{@code
 * McpClient client = McpClient.builder(InMemoryServerTransport.create(server).connect())
 *     .era(Era.MODERN).connect();
 * }</pre>
 */
public final class InMemoryClientTransport implements ClientTransport {

  private static final Capabilities CAPABILITIES = new Capabilities(true, false, false, false);

  private final InMemoryServerTransport server;
  private final Principal principal;
  private final ReentrantLock writeLock = new ReentrantLock();
  // Pins and guards of this transport, per thread. Kept here because the client's own helper
  // for them is internal to keel-client (see docs/testing-kit.md, "Limits").
  private final ThreadLocal<Long> pin = new ThreadLocal<>();
  private final ThreadLocal<Runnable> guard = new ThreadLocal<>();
  private volatile Receiver receiver;
  private volatile InMemoryServerTransport.Connection connection;
  private volatile String sessionId;
  private volatile long epoch;
  private volatile boolean closed;

  InMemoryClientTransport(InMemoryServerTransport server, Principal principal) {
    this.server = server;
    this.principal = principal;
  }

  /** Returns the principal this connection's requests run as. */
  public Principal principal() {
    return principal;
  }

  @Override
  public void start(Receiver target) {
    this.receiver = Objects.requireNonNull(target, "receiver");
    this.connection = server.open(this, principal);
  }

  @Override
  public Exchange send(JsonRpcMessage message, SendOptions options) {
    InMemoryServerTransport.Connection c;
    String session;
    writeLock.lock();
    try {
      // The pin is checked where the session is picked, as the HTTP and stdio transports do.
      check();
      if (closed || connection == null) {
        throw new TransportException("the in-memory transport is "
            + (closed ? "closed" : "not started"));
      }
      c = connection;
      session = sessionId;
    } finally {
      writeLock.unlock();
    }
    boolean stateless = options != null && options.modern();
    InMemoryServerTransport.RequestStream stream = c.deliver(message, session, stateless);
    if (stream == null) {
      return Exchange.NONE;
    }
    return stream::abort;
  }

  /**
   * Each request has a stream of its own, and aborting its exchange closes it: the client
   * cancels a stateless request that way, as over HTTP. The legacy session is named by the
   * server half, which starts and ends it here itself.
   */
  @Override
  public Capabilities capabilities() {
    return CAPABILITIES;
  }

  @Override
  public long sessionEpoch() {
    return epoch;
  }

  @Override
  public String sessionId() {
    return sessionId;
  }

  /** Ends the connection: its legacy session ends and its open streams close. Idempotent. */
  @Override
  public void close() {
    InMemoryServerTransport.Connection c;
    writeLock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      c = connection;
    } finally {
      writeLock.unlock();
    }
    if (c != null) {
      c.close(null);
    }
    sessionEnded(sessionId);
  }

  @Override
  public <T> T pinnedToSession(long pinned, Supplier<T> work) {
    Long previous = pin.get();
    pin.set(pinned);
    try {
      return work.get();
    } finally {
      restore(pin, previous);
    }
  }

  @Override
  public <T> T guardedWrites(Runnable check, Supplier<T> work) {
    Runnable previous = guard.get();
    guard.set(Objects.requireNonNull(check, "guard"));
    try {
      return work.get();
    } finally {
      restore(guard, previous);
    }
  }

  @Override
  public <T> T unpinnedSession(Supplier<T> work) {
    Long previousPin = pin.get();
    Runnable previousGuard = guard.get();
    pin.remove();
    guard.remove();
    try {
      return work.get();
    } finally {
      restore(pin, previousPin);
      restore(guard, previousGuard);
    }
  }

  private void check() {
    Runnable g = guard.get();
    if (g != null) {
      g.run();
    }
    Long pinned = pin.get();
    if (pinned != null && pinned != epoch) {
      throw new SessionChangedException(pinned, epoch);
    }
  }

  private static <V> void restore(ThreadLocal<V> local, V previous) {
    if (previous == null) {
      local.remove();
    } else {
      local.set(previous);
    }
  }

  // ------------------------------------------------ called by the server half

  void receive(JsonRpcMessage message) {
    Receiver r = receiver;
    if (r != null) {
      r.receive(message);
    }
  }

  void failed(RequestId id, RuntimeException failure) {
    Receiver r = receiver;
    if (r != null) {
      r.failed(id, failure);
    }
  }

  void closed(RuntimeException why) {
    closed = true;
    Receiver r = receiver;
    if (r != null) {
      r.closed(why);
    }
  }

  /**
   * The server half started a legacy session: a new id moves the epoch. (Not
   * {@link ClientTransport#sessionStarted}, which the client calls with the negotiated version
   * and which this transport does not need: the session is named here.)
   */
  void sessionOpened(String id) {
    writeLock.lock();
    try {
      if (!id.equals(sessionId)) {
        if (sessionId != null) {
          epoch++;
        }
        sessionId = id;
      }
    } finally {
      writeLock.unlock();
    }
  }

  /** The session ended (closed, expired, or unknown to the server): the epoch moves once. */
  void sessionEnded(String id) {
    if (id == null) {
      return;
    }
    writeLock.lock();
    try {
      if (id.equals(sessionId)) {
        sessionId = null;
        epoch++;
      }
    } finally {
      writeLock.unlock();
    }
  }
}
