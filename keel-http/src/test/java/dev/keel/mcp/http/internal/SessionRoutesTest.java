package dev.keel.mcp.http.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.ClusterBus;
import dev.keel.mcp.server.cluster.SessionDirectory;
import dev.keel.mcp.server.cluster.SessionRecord;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The node's copy of where other nodes' sessions live: what it saves (a lookup in the store per
 * request) and what it must never keep (an id the directory does not know, a listing past two
 * seconds, one the node was told to forget). The directory here is an in-process listing that
 * records each lookup; keel-redis runs the same class against a real Redis.
 */
class SessionRoutesTest {

  /** A directory in this process that records every lookup. */
  static final class Listing implements SessionDirectory {
    final Map<String, SessionRecord> records = new ConcurrentHashMap<>();
    final List<String> lookups = new CopyOnWriteArrayList<>();

    @Override
    public Claim claim(SessionRecord record, int maxSessions, int maxPerOwner) {
      records.put(record.id(), record);
      return Claim.CLAIMED;
    }

    @Override
    public Optional<SessionRecord> find(String id) {
      lookups.add(id);
      return Optional.ofNullable(records.get(id));
    }

    @Override
    public boolean move(String id, String fromNode, String toNode) {
      SessionRecord r = records.get(id);
      if (r == null || !r.node().equals(fromNode)) {
        return false;
      }
      records.put(id, new SessionRecord(id, r.owner(), toNode, r.protocolVersion(),
          r.clientCapabilities(), r.clientInfo()));
      return true;
    }

    @Override
    public Set<String> renew(Collection<SessionRecord> held) {
      return Set.of();
    }

    @Override
    public void remove(String id, String owner) {
      records.remove(id);
    }
  }

  /** A cluster whose only part these tests use is the directory. */
  static Cluster over(SessionDirectory directory) {
    return new Cluster() {
      @Override
      public String nodeId() {
        return "node-here";
      }

      @Override
      public boolean shared() {
        return true;
      }

      @Override
      public void join(URI address) {
        throw new UnsupportedOperationException("join");
      }

      @Override
      public Optional<URI> addressOf(String nodeId) {
        return Optional.empty();
      }

      @Override
      public SessionDirectory sessions() {
        return directory;
      }

      @Override
      public ClusterBus bus() {
        throw new UnsupportedOperationException("bus");
      }

      @Override
      public Optional<String> problem() {
        return Optional.empty();
      }

      @Override
      public void close() {
        // nothing held
      }
    };
  }

  final Listing listing = new Listing();
  final Cluster cluster = over(listing);
  final SessionRoutes routes = new SessionRoutes();

  static SessionRecord record(String id, String node) {
    return new SessionRecord(id, "alice-fingerprint", node, "2025-11-25", null, null);
  }

  @Test
  void aListingReadOnceServesTheNextRequestsWithoutALookup() {
    listing.claim(record("s1", "node-a"), 10, 10);
    List<Optional<SessionRecord>> found = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      found.add(routes.find(cluster, "s1"));
    }
    assertThat(found).allSatisfy(r -> assertThat(r).map(SessionRecord::node).contains("node-a"));
    assertThat(listing.lookups).containsExactly("s1");
  }

  @Test
  void anIdTheDirectoryDoesNotKnowIsLookedUpEveryTimeAndNeverKept() {
    assertThat(routes.find(cluster, "unknown")).isEmpty();
    assertThat(routes.find(cluster, "unknown")).isEmpty();
    assertThat(listing.lookups).containsExactly("unknown", "unknown");
    // listed since: found at once, not answered from a remembered absence
    listing.claim(record("unknown", "node-b"), 10, 10);
    assertThat(routes.find(cluster, "unknown")).map(SessionRecord::node).contains("node-b");
  }

  @Test
  void aForgottenListingIsReadAgainAndTheMoveSeen() {
    listing.claim(record("s1", "node-a"), 10, 10);
    assertThat(routes.find(cluster, "s1")).map(SessionRecord::node).contains("node-a");
    // node-a died and another node took the session over
    assertThat(listing.move("s1", "node-a", "node-c")).isTrue();
    assertThat(routes.find(cluster, "s1")).as("the copy, still fresh")
        .map(SessionRecord::node).contains("node-a");
    routes.forget("s1");
    routes.forget("never-read");
    assertThat(routes.find(cluster, "s1")).map(SessionRecord::node).contains("node-c");
    assertThat(listing.lookups).containsExactly("s1", "s1");
  }

  @Test
  void aListingIsKeptForTwoSecondsAndThenReadAgain() {
    listing.claim(record("s1", "node-a"), 10, 10);
    routes.find(cluster, "s1");
    listing.move("s1", "node-a", "node-c");
    long read = System.nanoTime();
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
        .until(() -> routes.find(cluster, "s1").map(SessionRecord::node)
            .orElse("").equals("node-c"));
    assertThat(Duration.ofNanos(System.nanoTime() - read))
        .as("the copy is not read again before it is two seconds old")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(listing.lookups).containsExactly("s1", "s1");
  }
}
