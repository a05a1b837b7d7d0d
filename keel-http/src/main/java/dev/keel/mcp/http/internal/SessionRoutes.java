package dev.keel.mcp.http.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.SessionRecord;
import java.time.Duration;
import java.util.Optional;

/**
 * Where the sessions other nodes hold live, as this node last read it from the directory: a
 * session's owner never changes, and its node only when a node died, which forwarding notices
 * (the connection is refused) and answers by asking the directory again. So a listing read once
 * serves the requests of the next two seconds without a round trip to the store. Ids the
 * directory does not know are never kept: each costs a lookup.
 */
final class SessionRoutes {

  private static final Duration KEEP = Duration.ofSeconds(2);

  private final Cache<String, SessionRecord> routes = Caffeine.newBuilder()
      .maximumSize(100_000).expireAfterWrite(KEEP).build();

  /** Returns the listing of {@code sid}, from this node's copy when it is fresh. */
  Optional<SessionRecord> find(Cluster cluster, String sid) {
    SessionRecord kept = routes.getIfPresent(sid);
    if (kept != null) {
      return Optional.of(kept);
    }
    Optional<SessionRecord> found = cluster.sessions().find(sid);
    found.ifPresent(r -> routes.put(sid, r));
    return found;
  }

  /** Forgets what was read of {@code sid} (its node could not be reached, or it moved). */
  void forget(String sid) {
    routes.invalidate(sid);
  }
}
