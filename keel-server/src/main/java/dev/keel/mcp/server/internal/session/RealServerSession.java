package dev.keel.mcp.server.internal.session;

import dev.keel.mcp.core.engine.OutboundRequests;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.metrics.ServerCounters;
import dev.keel.mcp.server.transport.ListenerAttachment;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * The server's record of one legacy session: what {@code initialize} negotiated, the log level,
 * the listening stream, subscriptions and the requests sent to the client.
 */
public final class RealServerSession implements ServerSession {

  /** The most resource subscriptions one session may hold. */
  public static final int MAX_SUBSCRIPTIONS = 1000;
  /** The most requests to the client one session may have outstanding. */
  public static final int MAX_PENDING = 64;

  private record Listener(long token, MessageStream stream) {}

  private final String id;
  private final Principal owner;
  private final boolean channel;
  private final ServerCounters counters;
  private final Consumer<RealServerSession> closer;
  private final AtomicInteger inFlight = new AtomicInteger();
  private final OutboundRequests pending = new OutboundRequests(MAX_PENDING);
  private final Set<String> subscriptions = ConcurrentHashMap.newKeySet();
  private final AtomicReference<Listener> listener = new AtomicReference<>();
  private final AtomicLong listenerTokens = new AtomicLong();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final List<Runnable> closeActions = new ArrayList<>();
  private volatile String protocolVersion;
  private volatile ClientCapabilities clientCapabilities = ClientCapabilities.none();
  private volatile Implementation clientInfo;
  private volatile LoggingLevel logLevel;
  private volatile boolean initialized;
  private volatile long lastActivityNanos = System.nanoTime();
  private final long createdNanos = lastActivityNanos;

  RealServerSession(String id, Principal owner, boolean channel, LoggingLevel logLevel,
      ServerCounters counters, Consumer<RealServerSession> closer) {
    this.id = id;
    this.owner = owner;
    this.channel = channel;
    this.logLevel = logLevel;
    this.counters = counters;
    this.closer = closer;
  }

  /**
   * Returns true for a notification channel: a listening-only session claimed by trust on first
   * use, which no {@code initialize} created and which takes no requests.
   */
  public boolean isChannel() {
    return channel;
  }

  /** A request of this session started; the session is busy until it ends. */
  public void requestStarted() {
    inFlight.incrementAndGet();
    touch();
  }

  /** A request of this session ended. */
  public void requestEnded() {
    inFlight.decrementAndGet();
    touch();
  }

  /** Returns how many of this session's requests run now. */
  public int requestsRunning() {
    return inFlight.get();
  }

  /** Returns the {@link System#nanoTime()} of the session's creation (or its restoring here). */
  public long createdNanos() {
    return createdNanos;
  }

  /** Returns how many resources the session is subscribed to. */
  public int subscriptionCount() {
    return subscriptions.size();
  }

  /** Returns true while a request runs or a request to the client is outstanding. */
  public boolean busy() {
    return inFlight.get() > 0 || pending.size() > 0;
  }

  /**
   * Returns true when closing the session now would cancel nothing, fail nothing and detach no
   * listening stream.
   */
  public boolean quiet() {
    return !busy() && listener.get() == null;
  }

  @Override
  public String id() {
    return id;
  }

  @Override
  public Principal owner() {
    return owner;
  }

  @Override
  public String protocolVersion() {
    return protocolVersion;
  }

  @Override
  public ClientCapabilities clientCapabilities() {
    return clientCapabilities;
  }

  @Override
  public Implementation clientInfo() {
    return clientInfo;
  }

  /** Records what {@code initialize} negotiated. */
  public void negotiated(String version, ClientCapabilities caps, Implementation info) {
    this.protocolVersion = version;
    this.clientCapabilities = caps == null ? ClientCapabilities.none() : caps;
    this.clientInfo = info;
  }

  /** Marks the session initialized ({@code notifications/initialized}). */
  public void markInitialized() {
    initialized = true;
  }

  /** Returns true once the client sent {@code notifications/initialized}. */
  public boolean initialized() {
    return initialized;
  }

  /** Returns the log level messages must reach to be sent. */
  public LoggingLevel logLevel() {
    return logLevel;
  }

  /** Sets the log level ({@code logging/setLevel}). */
  public void logLevel(LoggingLevel level) {
    this.logLevel = level;
  }

  /** Returns the requests this session has sent to its client. */
  public OutboundRequests pending() {
    return pending;
  }

  @Override
  public void touch() {
    lastActivityNanos = System.nanoTime();
  }

  /** Returns the {@link System#nanoTime()} of the last activity. */
  public long lastActivityNanos() {
    return lastActivityNanos;
  }

  /**
   * Subscribes to a resource.
   *
   * @return false when the session already holds {@link #MAX_SUBSCRIPTIONS}
   */
  public boolean subscribe(String uri) {
    synchronized (subscriptions) {
      // Checked under the lock that close() clears under: a torn-down session stays down.
      if (closed.get()) {
        return false;
      }
      if (subscriptions.contains(uri)) {
        return true;
      }
      if (subscriptions.size() >= MAX_SUBSCRIPTIONS) {
        return false;
      }
      return subscriptions.add(uri);
    }
  }

  /** Unsubscribes from a resource. */
  public void unsubscribe(String uri) {
    subscriptions.remove(uri);
  }

  /** Returns true when subscribed to {@code uri}. */
  public boolean subscribed(String uri) {
    return subscriptions.contains(uri);
  }

  @Override
  public ListenerAttachment attachListener(MessageStream stream) {
    long token = listenerTokens.incrementAndGet();
    Listener mine = new Listener(token, stream);
    if (closed.get()) {
      return new Attachment(mine);
    }
    if (listener.getAndSet(mine) == null) {
      counters.listenerAttached();
    }
    if (closed.get() && listener.compareAndSet(mine, null)) {
      counters.listenerDetached();
    }
    touch();
    return new Attachment(mine);
  }

  /**
   * Sends a message on the listening stream.
   *
   * @return false when no stream is attached or it refused the message
   */
  public boolean sendToListener(JsonRpcMessage message) {
    Listener current = listener.get();
    return current != null && !closed.get() && current.stream().send(message);
  }

  /** Returns true while a listening stream is attached. */
  public boolean hasListener() {
    return listener.get() != null;
  }

  @Override
  public boolean isClosed() {
    return closed.get();
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (listener.getAndSet(null) != null) {
      counters.listenerDetached();
    }
    synchronized (subscriptions) {
      subscriptions.clear();
    }
    // Cancel the session's requests first, then fail what they wait on: a handler woken by the
    // failed wait must already see its cancellation, so it sends nothing more.
    closer.accept(this);
    pending.close("session ended");
    List<Runnable> actions;
    synchronized (closeActions) {
      actions = List.copyOf(closeActions);
      closeActions.clear();
    }
    actions.forEach(RealServerSession::runQuietly);
  }

  @Override
  public void onClose(Runnable action) {
    synchronized (closeActions) {
      if (!closed.get()) {
        closeActions.add(action);
        return;
      }
    }
    runQuietly(action);
  }

  private static void runQuietly(Runnable action) {
    try {
      action.run();
    } catch (RuntimeException ignored) {
      // a close hook must not stop the others
    }
  }

  private final class Attachment implements ListenerAttachment {
    private final Listener mine;

    Attachment(Listener mine) {
      this.mine = mine;
    }

    @Override
    public void detach() {
      if (listener.compareAndSet(mine, null)) {
        counters.listenerDetached();
      }
    }

    @Override
    public boolean isCurrent() {
      return listener.get() == mine;
    }
  }
}
