package dev.keel.mcp.core.engine;

import dev.keel.mcp.core.jsonrpc.RequestId;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The requests a side received and is still running, keyed by (scope, request id): the
 * protocol engine's inbound table, which the server keeps for its sessions and stateless
 * connections (and a client for the requests its server sends). The scope is a session id, or
 * the connection a stateless request came on.
 *
 * <p>A request registers its token before its handler starts, so an immediate
 * {@code notifications/cancelled} is never lost. {@link #register} returns an entry id;
 * {@link #deregister} removes the slot only while that entry still owns it, so a stale cleanup
 * never evicts a newer registration under the same key. A cancel names both the session and the
 * request: the wrong session, an unknown id or a finished request changes nothing.
 */
public final class InboundRequests {

  private record Key(String sessionId, RequestId requestId) {}

  private record Entry(long id, CancellationSource source) {}

  private final Map<Key, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong nextEntry = new AtomicLong(1);

  /**
   * Registers a request's token, replacing any older registration under the same key.
   *
   * @return the entry id to deregister with
   * @throws IllegalArgumentException when the session id is blank (sessionless requests are not
   *     cancellable by notification)
   */
  public long register(String sessionId, RequestId requestId, CancellationSource source) {
    requireSession(sessionId);
    Objects.requireNonNull(requestId, "requestId");
    long id = nextEntry.getAndIncrement();
    entries.put(new Key(sessionId, requestId), new Entry(id, source));
    return id;
  }

  /**
   * Removes the registration if entry {@code entryId} still owns the slot.
   *
   * @return true when it was removed
   */
  public boolean deregister(String sessionId, RequestId requestId, long entryId) {
    Key key = new Key(sessionId, requestId);
    boolean[] removed = {false};
    entries.computeIfPresent(key, (k, e) -> {
      if (e.id() == entryId) {
        removed[0] = true;
        return null;
      }
      return e;
    });
    return removed[0];
  }

  /**
   * Trips the token registered under exactly this session and request.
   *
   * @return true when a token was tripped by this call
   */
  public boolean cancel(String sessionId, RequestId requestId, String reason) {
    if (sessionId == null || sessionId.isBlank() || requestId == null) {
      return false;
    }
    Entry entry = entries.get(new Key(sessionId, requestId));
    return entry != null && entry.source().cancel(reason);
  }

  /**
   * Trips every token of a session (DELETE, expiry, end of a stdio process).
   *
   * @return how many were tripped
   */
  public int cancelAllFor(String sessionId, String reason) {
    int count = 0;
    for (Map.Entry<Key, Entry> e : entries.entrySet()) {
      if (e.getKey().sessionId().equals(sessionId) && e.getValue().source().cancel(reason)) {
        count++;
      }
    }
    return count;
  }

  /**
   * Trips every registered token: the one close path when this side shuts down.
   *
   * @return how many were tripped
   */
  public int cancelAll(String reason) {
    int count = 0;
    for (Entry e : entries.values()) {
      if (e.source().cancel(reason)) {
        count++;
      }
    }
    return count;
  }

  /** Returns how many requests are registered. */
  public int size() {
    return entries.size();
  }

  private static void requireSession(String sessionId) {
    if (sessionId == null || sessionId.isBlank()) {
      throw new IllegalArgumentException("a cancellable request needs a session id");
    }
  }
}
