package dev.keel.mcp.http.internal;

import dev.keel.mcp.http.spi.EventStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP streams of one session: request streams that may still be resumed, and the current
 * listening stream. Stream ids are {@code p<n>} for request streams and {@code g<n>} for
 * listening streams, counted per session.
 */
final class SessionStreams {

  private final String sessionId;
  private final AtomicLong counter = new AtomicLong();
  private final Map<String, PostExchange> requestStreams = new ConcurrentHashMap<>();
  private final AtomicReference<ListeningStream> listening = new AtomicReference<>();
  /** Set by {@link #closeAll} before the session's events are forgotten. */
  private volatile boolean closed;

  SessionStreams(String sessionId) {
    this.sessionId = sessionId;
  }

  String sessionId() {
    return sessionId;
  }

  String newRequestStreamId() {
    return "p" + counter.incrementAndGet();
  }

  String newListeningStreamId() {
    return "g" + counter.incrementAndGet();
  }

  void requestStreamOpened(String streamId, PostExchange exchange) {
    requestStreams.put(streamId, exchange);
  }

  void requestStreamEnded(String streamId, PostExchange exchange) {
    requestStreams.remove(streamId, exchange);
  }

  PostExchange requestStream(String streamId) {
    return requestStreams.get(streamId);
  }

  /** Makes {@code stream} the listening stream and closes the one it replaces. */
  void listening(ListeningStream stream) {
    ListeningStream old = listening.getAndSet(stream);
    if (old != null && old != stream) {
      old.close();
    }
  }

  void listeningClosed(ListeningStream stream) {
    listening.compareAndSet(stream, null);
  }

  /** Returns true while no stream of the session is open: closing them would touch nothing. */
  boolean quiet() {
    return listening.get() == null && requestStreams.isEmpty();
  }

  int requestStreamCount() {
    return requestStreams.size();
  }

  /**
   * Stores an event of one of this session's streams and returns its id. A stream may write
   * after its session ended (it opened just as a DELETE or an expiry came, and was never in
   * the lists {@link #closeAll} closes): the session's events are then forgotten again, since
   * the forget the session's end ran may have come first and the event would outlive it.
   */
  String append(EventStore events, String streamId, byte[] data) {
    String id = events.append(sessionId, streamId, data);
    if (closed) {
      events.forget(sessionId);
    }
    return id;
  }

  /** Closes every connection of the session (DELETE, expiry, shutdown). */
  void closeAll(boolean sendRetry) {
    closed = true;
    ListeningStream l = listening.getAndSet(null);
    if (l != null) {
      if (sendRetry) {
        l.closeWithRetry();
      } else {
        l.close();
      }
    }
    for (PostExchange exchange : requestStreams.values()) {
      exchange.abort();
    }
    requestStreams.clear();
  }
}
