package dev.keel.mcp.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.cluster.ClusterUnavailableException;
import dev.keel.mcp.server.cluster.SessionDirectory;
import dev.keel.mcp.server.cluster.SessionRecord;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.ServerSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The session directory of {@link RedisCluster} in a real Redis, as several nodes see it: the
 * owner binding holds on every node, the session limits hold for all nodes together even when
 * they race, a dead node's session is taken over by exactly one node, a listing is removed only
 * by its owner on its node, and renewals put back what a restarted Redis lost.
 */
class RedisClusterTest {

  private static TestRedis redis;
  private final List<AutoCloseable> opened = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    redis = TestRedis.start();
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  private RedisCluster node(String namespace) {
    RedisCluster c = RedisCluster.builder(redis.uri()).namespace(namespace)
        .heartbeat(Duration.ofMillis(200)).build();
    opened.add(c);
    return c;
  }

  private McpServer server(RedisCluster cluster, int maxSessions, int perPrincipal) {
    McpServer s = McpServer.builder().cluster(cluster).maxSessions(maxSessions)
        .maxSessionsPerPrincipal(perPrincipal).build();
    opened.add(s);
    return s;
  }

  private static InitializeOutcome initialize(McpServer server, Principal who) {
    return server.engine().initialize(who, new JsonRpcRequest(RequestId.of(1), "initialize",
        McpJson.standard().parseObject("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
            + "{\"roots\":{}},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}")), null);
  }

  private static String ns() {
    return "t" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void inv4_aSessionIsListedUnderItsInitializingOwnerAndNodeForEveryNode() {
    String ns = ns();
    RedisCluster a = node(ns);
    RedisCluster b = node(ns);
    McpServer onA = server(a, 100, 100);
    Principal alice = Principal.of("alice");
    ServerSession session = initialize(onA, alice).session();
    Optional<SessionRecord> seenByB = b.find(session.id());
    assertThat(seenByB).isPresent();
    assertThat(seenByB.get().owner()).isEqualTo(alice.fingerprint());
    assertThat(seenByB.get().node()).isEqualTo(a.nodeId());
    assertThat(seenByB.get().protocolVersion()).isEqualTo("2025-11-25");
    assertThat(seenByB.get().clientCapabilities().has("roots")).isTrue();
    session.close();
    assertThat(b.find(session.id())).as("DELETE unlists it everywhere").isEmpty();
  }

  @Test
  void theSessionLimitsHoldForAllNodesTogether() {
    String ns = ns();
    McpServer onA = server(node(ns), 3, 2);
    McpServer onB = server(node(ns), 3, 2);
    Principal alice = Principal.of("alice");
    ServerSession first = initialize(onA, alice).session();
    assertThat(initialize(onA, alice).session()).isNotNull();
    InitializeOutcome third = initialize(onB, alice);
    assertThat(third.session()).as("alice's third session, on the other node").isNull();
    assertThat(((JsonRpcErrorResponse) third.response()).error().message())
        .isEqualTo("Too many sessions");
    assertThat(onB.metrics().sessions()).as("nothing left behind on the refusing node").isZero();
    assertThat(initialize(onB, Principal.of("bob")).session()).isNotNull();
    assertThat(initialize(onB, Principal.of("carol")).session()).as("three in all").isNull();
    first.close();
    assertThat(initialize(onB, alice).session()).as("room again after a DELETE on A")
        .isNotNull();
  }

  @Test
  void racingClaimsOnTwoNodesNeverPassTheLimit() throws Exception {
    String ns = ns();
    RedisCluster a = node(ns);
    RedisCluster b = node(ns);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<SessionDirectory.Claim>> claims = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        RedisCluster on = i % 2 == 0 ? a : b;
        SessionRecord r = new SessionRecord("s" + i, "op:alice", on.nodeId(), "2025-11-25",
            null, null);
        claims.add(pool.submit(() -> on.claim(r, 1000, 5)));
      }
      int claimed = 0;
      for (Future<SessionDirectory.Claim> f : claims) {
        claimed += f.get() == SessionDirectory.Claim.CLAIMED ? 1 : 0;
      }
      assertThat(claimed).isEqualTo(5);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void inv10_anIdAlreadyListedIsNeverClaimedAgainByAnyone() {
    String ns = ns();
    RedisCluster a = node(ns);
    RedisCluster b = node(ns);
    SessionRecord alices = new SessionRecord("same-id", "op:alice", a.nodeId(), "2025-11-25",
        null, null);
    assertThat(a.claim(alices, 10, 10)).isEqualTo(SessionDirectory.Claim.CLAIMED);
    SessionRecord bobs = new SessionRecord("same-id", "op:bob", b.nodeId(), "2025-11-25", null,
        null);
    assertThat(b.claim(bobs, 10, 10)).isEqualTo(SessionDirectory.Claim.REFUSED);
    assertThat(a.find("same-id").orElseThrow().owner()).isEqualTo("op:alice");
  }

  @Test
  void aDeadNodesSessionIsTakenOverByExactlyOneNode() throws Exception {
    String ns = ns();
    RedisCluster dead = node(ns);
    dead.join(java.net.URI.create("http://127.0.0.1:1/mcp"));
    SessionRecord r = new SessionRecord("orphan", "op:alice", dead.nodeId(), "2025-11-25", null,
        null);
    dead.claim(r, 10, 10);
    RedisCluster b = node(ns);
    RedisCluster c = node(ns);
    assertThat(b.addressOf(dead.nodeId())).isPresent();
    dead.close();
    opened.remove(dead);
    await().atMost(Duration.ofSeconds(5)).until(() -> b.addressOf(dead.nodeId()).isEmpty());
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<Boolean> byB = pool.submit(() -> b.move("orphan", dead.nodeId(), b.nodeId()));
      Future<Boolean> byC = pool.submit(() -> c.move("orphan", dead.nodeId(), c.nodeId()));
      assertThat(byB.get() ^ byC.get()).as("exactly one node took it").isTrue();
      String holder = b.find("orphan").orElseThrow().node();
      assertThat(holder).isEqualTo(byB.get() ? b.nodeId() : c.nodeId());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aListingIsRemovedOnlyByItsOwnerOnTheNodeThatHoldsIt() {
    String ns = ns();
    RedisCluster a = node(ns);
    RedisCluster b = node(ns);
    a.claim(new SessionRecord("kept", "op:alice", a.nodeId(), "2025-11-25", null, null), 10,
        10);
    a.remove("kept", "op:bob");
    b.remove("kept", "op:alice");
    assertThat(a.find("kept")).isPresent();
    a.remove("kept", "op:alice");
    assertThat(b.find("kept")).isEmpty();
  }

  @Test
  void renewalsListAgainWhatARestartedRedisLostAndGiveUpWhatAnotherNodeTookOver()
      throws Exception {
    String ns = ns();
    RedisCluster a = node(ns);
    McpServer onA = server(a, 100, 100);
    ServerSession kept = initialize(onA, Principal.of("alice")).session();
    ServerSession taken = initialize(onA, Principal.of("alice")).session();
    RedisCluster b = node(ns);
    assertThat(b.move(taken.id(), a.nodeId(), b.nodeId())).isTrue();
    try (var raw = io.lettuce.core.RedisClient.create(redis.uri()).connect()) {
      raw.sync().del(ns + ":s:" + kept.id());
    }
    // the server renews every 10 s at most; a renewal now does what that one would
    assertThat(a.renew(List.of(new SessionRecord(kept.id(), kept.owner().fingerprint(),
        a.nodeId(), kept.protocolVersion(), null, null), new SessionRecord(taken.id(),
        taken.owner().fingerprint(), a.nodeId(), taken.protocolVersion(), null, null))))
        .containsExactly(taken.id());
    assertThat(b.find(kept.id()).orElseThrow().node()).isEqualTo(a.nodeId());
    assertThat(b.find(taken.id()).orElseThrow().node()).isEqualTo(b.nodeId());
  }

  @Test
  void aStoppedRedisFailsAtOnceAndTheClusterReconnectsByItself() throws Exception {
    String ns = ns();
    RedisCluster a = node(ns);
    redis.kill();
    try {
      long start = System.nanoTime();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> a.find("any"))
          .isInstanceOf(ClusterUnavailableException.class);
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
      await().atMost(Duration.ofSeconds(3)).until(() -> a.problem().isPresent());
    } finally {
      redis.run();
    }
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions()
        .until(() -> a.find("any").isEmpty() && a.problem().isEmpty());
  }

  @Test
  void aSessionBetweenItsCreationAndItsClaimIsNotRenewedIntoTheDirectoryFirst() {
    // renewals every second (a third of the idle timeout) and a claim that takes 1.5 s to reach
    // Redis: a renewal runs while the new session waits for its claim. Before the fix it listed
    // the session itself, and the claim then found the id taken: "Too many sessions".
    String ns = ns();
    RedisCluster real = node(ns);
    dev.keel.mcp.server.cluster.Cluster slowClaims = new SlowClaims(real);
    McpServer s = McpServer.builder().cluster(slowClaims)
        .sessionIdleTimeout(Duration.ofSeconds(3)).build();
    opened.add(s);
    InitializeOutcome outcome = initialize(s, Principal.of("alice"));
    assertThat(outcome.session()).as("%s", outcome.response()).isNotNull();
    assertThat(real.find(outcome.session().id())).isPresent();
  }

  /** The real cluster, with claims that take 1.5 s. */
  private record SlowClaims(RedisCluster real) implements dev.keel.mcp.server.cluster.Cluster,
      SessionDirectory {
    @Override
    public String nodeId() {
      return real.nodeId();
    }

    @Override
    public boolean shared() {
      return true;
    }

    @Override
    public void join(java.net.URI address) {
      real.join(address);
    }

    @Override
    public Optional<java.net.URI> addressOf(String node) {
      return real.addressOf(node);
    }

    @Override
    public SessionDirectory sessions() {
      return this;
    }

    @Override
    public dev.keel.mcp.server.cluster.ClusterBus bus() {
      return real.bus();
    }

    @Override
    public Optional<String> problem() {
      return real.problem();
    }

    @Override
    public void close() {
      // the test closes the real one
    }

    @Override
    public Claim claim(SessionRecord record, int maxSessions, int maxPerOwner) {
      try {
        Thread.sleep(1500);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return real.claim(record, maxSessions, maxPerOwner);
    }

    @Override
    public Optional<SessionRecord> find(String id) {
      return real.find(id);
    }

    @Override
    public boolean move(String id, String fromNode, String toNode) {
      return real.move(id, fromNode, toNode);
    }

    @Override
    public java.util.Set<String> renew(java.util.Collection<SessionRecord> held) {
      return real.renew(held);
    }

    @Override
    public void remove(String id, String owner) {
      real.remove(id, owner);
    }
  }
}
