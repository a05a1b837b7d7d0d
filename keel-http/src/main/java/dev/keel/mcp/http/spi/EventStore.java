package dev.keel.mcp.http.spi;

import dev.keel.mcp.http.internal.InMemoryEventStore;
import java.util.List;
import java.util.Optional;

/**
 * Keeps the SSE events of legacy sessions so that a client can resume a broken stream with
 * {@code GET} and {@code Last-Event-ID}.
 *
 * <p>Event ids are unique within a session and name their stream, so a resume replays only
 * that stream. Implementations must be thread-safe and bounded: old events may be dropped, in
 * which case a resume from them replays nothing.
 */
public interface EventStore {

  /**
   * Stores an event and returns its id.
   *
   * @param data the encoded JSON-RPC message; empty for a priming event
   */
  String append(String sessionId, String streamId, byte[] data);

  /** Returns the stream an event id belongs to, if the store knows it. */
  Optional<String> streamOf(String sessionId, String eventId);

  /** Returns the events of the same stream stored after {@code eventId}, oldest first. */
  List<StoredEvent> after(String sessionId, String eventId);

  /** Drops everything stored for a session. */
  void forget(String sessionId);

  /**
   * A stored event.
   *
   * @param id its id
   * @param data the encoded message, empty for a priming event
   */
  record StoredEvent(String id, byte[] data) {}

  /**
   * Returns an in-memory store keeping at most {@code maxEventsPerSession} events and
   * {@code maxBytesPerSession} bytes per session, oldest dropped first.
   */
  static EventStore inMemory(int maxEventsPerSession, long maxBytesPerSession) {
    return new InMemoryEventStore(maxEventsPerSession, maxBytesPerSession);
  }
}
