package dev.keel.mcp.test;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.SessionChangedException;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.Principal;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
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

  private final InMemoryServerTransport server;
  private final Principal principal;
  private final ReentrantLock writeLock = new ReentrantLock();
  // Pins and guards of this transport, per thread. Kept here because the client's own helper
  // for them is internal to keel-client (see docs/testing-kit.md, "Limits").
  private final ThreadLocal<Long> pin = new ThreadLocal<>();
  private final ThreadLocal<Runnable> guard = new ThreadLocal<>();
  /** Stateless requests whose streams are open, by id: their cancellation closes the stream. */
  private final Map<RequestId, InMemoryServerTransport.RequestStream> modern =
      new ConcurrentHashMap<>();
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
    if (stateless && message instanceof JsonRpcNotification n
        && n.method().equals("notifications/cancelled")) {
      // The client cancels a stateless request on a transport it does not know with this
      // notification; in the stateless era closing the request's stream is the cancellation.
      RequestId id = n.params() == null ? null : RequestId.fromJson(n.params().get("requestId"));
      InMemoryServerTransport.RequestStream stream = id == null ? null : modern.remove(id);
      if (stream != null) {
        stream.abort();
      }
      return () -> { };
    }
    InMemoryServerTransport.RequestStream stream = c.deliver(message, session, stateless);
    if (stream == null) {
      return () -> { };
    }
    RequestId id = message.id();
    if (stateless && stream.isOpen()) {
      modern.put(id, stream);
      if (!stream.isOpen()) {
        modern.remove(id, stream); // answered meanwhile, on a handler thread
      }
    }
    return () -> {
      modern.remove(id, stream);
      stream.abort();
    };
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
    modern.clear();
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
    if (message.id() != null
        && (message instanceof JsonRpcResponse || message instanceof JsonRpcErrorResponse)) {
      modern.remove(message.id());
    }
    Receiver r = receiver;
    if (r != null) {
      r.receive(message);
    }
  }

  void failed(RequestId id, RuntimeException failure) {
    modern.remove(id);
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

  /** A legacy session started: a new id moves the epoch. */
  void sessionStarted(String id) {
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
