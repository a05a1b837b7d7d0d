package dev.keel.mcp.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.internal.mrtr.RequestStateSealer;
import io.lettuce.core.RedisException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.StringNode;

/**
 * The {@code requestState} key ring in a real Redis, as several nodes see it: a state sealed on
 * one node opens on another, also right after a rotation there; nodes starting together agree on
 * the first key; the ring keeps only its newest keys; Redis going away leaves the last keys
 * working, and Redis coming back empty gets them back.
 */
class RedisRequestStateKeysTest {

  private static TestRedis redis;

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

  private static RedisRequestStateKeys.Builder ring(String namespace) {
    return RedisRequestStateKeys.builder(redis.uri()).namespace(namespace)
        .refreshInterval(Duration.ofHours(1));
  }

  private static RequestStateSealer node(RedisRequestStateKeys ring) {
    return new RequestStateSealer(ring, Duration.ofMinutes(5), Clock.systemUTC(),
        McpJson.standard());
  }

  private static String seal(RequestStateSealer node) {
    return node.seal("fp", "tools/call", "d", 2, McpJson.object().put("confirm", "yes"));
  }

  private static RequestStateSealer.Opened open(RequestStateSealer node, String state) {
    return node.open(StringNode.valueOf(state), "fp", "tools/call", "d");
  }

  @Test
  void aStateSealedOnOneNodeOpensOnAnotherAlsoRightAfterARotation() {
    String ns = "t" + UUID.randomUUID();
    try (RedisRequestStateKeys a = ring(ns).build(); RedisRequestStateKeys b = ring(ns).build()) {
      RequestStateSealer nodeA = node(a);
      RequestStateSealer nodeB = node(b);
      assertThat(open(nodeB, seal(nodeA)).answers().path("confirm").asString()).isEqualTo("yes");

      a.rotate(); // B reads the ring only hourly: it learns of the new key from the state
      String underNewKey = seal(nodeA);
      assertThat(open(nodeB, underNewKey).round()).isEqualTo(2);
      assertThat(b.keys().get(0)).as("B seals with the new key now").isEqualTo(a.keys().get(0));
      assertThat(open(nodeA, seal(nodeB)).round()).isEqualTo(2);
      // the server takes the ring as its key ring
      McpServer.builder().name("n").version("1").requestStateKeys(a).build().close();
    }
  }

  @Test
  void nodesStartingTogetherAgreeOnTheFirstKey() throws Exception {
    String ns = "t" + UUID.randomUUID();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    List<RedisRequestStateKeys> rings = new ArrayList<>();
    try {
      List<Future<RedisRequestStateKeys>> starting = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        starting.add(pool.submit(() -> ring(ns).build()));
      }
      for (Future<RedisRequestStateKeys> f : starting) {
        rings.add(f.get());
      }
      byte[] first = rings.get(0).keys().get(0);
      for (RedisRequestStateKeys r : rings) {
        assertThat(r.keys()).hasSize(1);
        assertThat(r.keys().get(0)).isEqualTo(first);
      }
    } finally {
      rings.forEach(RedisRequestStateKeys::close);
      pool.shutdownNow();
    }
  }

  @Test
  void theRingKeepsItsNewestKeysOnly() {
    String ns = "t" + UUID.randomUUID();
    try (RedisRequestStateKeys a = ring(ns).keep(2).build()) {
      RequestStateSealer nodeA = node(a);
      String oldest = seal(nodeA);
      a.rotate();
      String middle = seal(nodeA);
      assertThat(open(nodeA, oldest).round()).as("still listed").isEqualTo(2);
      a.rotate();
      assertThat(a.keys()).hasSize(2);
      assertThat(open(nodeA, middle).round()).isEqualTo(2);
      assertThatThrownBy(() -> open(nodeA, oldest)).isInstanceOf(McpException.class)
          .hasMessageContaining("Invalid requestState");
    }
  }

  @Test
  void withoutRedisTheLastKeysWorkAndAnEmptyRedisGetsThemBack() throws Exception {
    String ns = "t" + UUID.randomUUID();
    try (RedisRequestStateKeys a = RedisRequestStateKeys.builder(redis.uri()).namespace(ns)
        .refreshInterval(Duration.ZERO).timeout(Duration.ofMillis(500)).build()) {
      RequestStateSealer nodeA = node(a);
      String sealed = seal(nodeA);
      byte[] key = a.keys().get(0);
      redis.kill();
      try {
        long started = System.nanoTime();
        assertThat(open(nodeA, sealed).round()).as("the keys last read").isEqualTo(2);
        assertThat(seal(nodeA)).isNotEmpty();
        assertThatThrownBy(a::rotate).isInstanceOf(RedisException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
            .as("no hang while Redis is away").isLessThan(Duration.ofSeconds(10));
      } finally {
        redis.run(); // back, and empty
      }
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
        a.keys();
        try (RedisRequestStateKeys b = ring(ns).build()) {
          assertThat(b.keys().get(0)).as("put back by node A").isEqualTo(key);
          assertThat(open(node(b), sealed).round()).isEqualTo(2);
        }
      });
    }
  }
}
