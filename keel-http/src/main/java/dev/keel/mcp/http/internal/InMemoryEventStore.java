package dev.keel.mcp.http.internal;

import dev.keel.mcp.http.spi.EventStore;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The default {@link EventStore}: a bounded log per session, oldest events dropped first.
 * Event ids are {@code <stream>.<sequence>}, the sequence counting per session.
 */
public final class InMemoryEventStore implements EventStore {

  private record Entry(String id, String streamId, byte[] data) {}

  private static final class Log {
    final ReentrantLock lock = new ReentrantLock();
    final ArrayDeque<Entry> entries = new ArrayDeque<>();
    long sequence;
    long bytes;
  }

  private final Map<String, Log> logs = new ConcurrentHashMap<>();
  private final int maxEvents;
  private final long maxBytes;

  /** Creates a store with per-session bounds. */
  public InMemoryEventStore(int maxEvents, long maxBytes) {
    if (maxEvents <= 0 || maxBytes <= 0) {
      throw new IllegalArgumentException("event store bounds must be positive");
    }
    this.maxEvents = maxEvents;
    this.maxBytes = maxBytes;
  }

  @Override
  public String append(String sessionId, String streamId, byte[] data) {
    if (streamId.indexOf('.') >= 0) {
      throw new IllegalArgumentException("stream ids must not contain '.'");
    }
    Log log = logs.computeIfAbsent(sessionId, k -> new Log());
    log.lock.lock();
    try {
      String id = streamId + "." + (++log.sequence);
      log.entries.addLast(new Entry(id, streamId, data));
      log.bytes += data.length;
      while (log.entries.size() > maxEvents || (log.bytes > maxBytes && log.entries.size() > 1)) {
        log.bytes -= log.entries.removeFirst().data().length;
      }
      return id;
    } finally {
      log.lock.unlock();
    }
  }

  @Override
  public Optional<String> streamOf(String sessionId, String eventId) {
    int dot = eventId == null ? -1 : eventId.lastIndexOf('.');
    if (dot <= 0 || !logs.containsKey(sessionId)) {
      return Optional.empty();
    }
    return Optional.of(eventId.substring(0, dot));
  }

  @Override
  public List<StoredEvent> after(String sessionId, String eventId) {
    Log log = logs.get(sessionId);
    if (log == null) {
      return List.of();
    }
    log.lock.lock();
    try {
      List<StoredEvent> out = new ArrayList<>();
      String stream = null;
      Iterator<Entry> it = log.entries.iterator();
      while (it.hasNext()) {
        Entry e = it.next();
        if (stream == null) {
          if (e.id().equals(eventId)) {
            stream = e.streamId();
          }
        } else if (e.streamId().equals(stream)) {
          out.add(new StoredEvent(e.id(), e.data()));
        }
      }
      return out;
    } finally {
      log.lock.unlock();
    }
  }

  @Override
  public void forget(String sessionId) {
    logs.remove(sessionId);
  }
}
