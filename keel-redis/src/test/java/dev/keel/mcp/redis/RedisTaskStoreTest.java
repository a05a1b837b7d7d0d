package dev.keel.mcp.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@link RedisTaskStore} in a real Redis, as two nodes see it: a task one node stores and
 * changes is read on the other as it is; an outcome written first is the one that stays when
 * two nodes race; a task whose node stopped fails instead of staying {@code working}; the
 * limits and the expiry sweep hold across nodes.
 */
class RedisTaskStoreTest {

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

  private RedisCluster node(String ns) {
    RedisCluster c = RedisCluster.builder(redis.uri()).namespace(ns)
        .heartbeat(Duration.ofMillis(200)).build();
    c.join(java.net.URI.create("http://127.0.0.1:1/mcp"));
    opened.add(c);
    return c;
  }

  private static StoredTask task(String id, String owner, long ttlMillis, Instant created) {
    return new StoredTask(id, owner, null, true, TaskStatus.WORKING, null, created, created,
        ttlMillis, 500, null, null, null);
  }

  private static String ns() {
    return "t" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void aTaskStoredAndChangedOnOneNodeReadsTheSameOnAnother() {
    String ns = ns();
    RedisTaskStore a = RedisTaskStore.builder(node(ns)).build();
    RedisTaskStore b = RedisTaskStore.builder(node(ns)).build();
    Instant now = Instant.now();
    assertThat(a.create(task("t1", "op:alice", 60_000, now))).isTrue();
    a.update("t1", t -> t.withInputRequests(McpJson.standard().parseObject(
        "{\"q\":{\"method\":\"elicitation/create\"}}"), now.plusMillis(5)));
    StoredTask seen = b.get("t1").orElseThrow();
    assertThat(seen.status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    assertThat(seen.inputRequests().has("q")).isTrue();
    assertThat(seen.createdAt()).isEqualTo(now);
    assertThat(b.byOwner("op:alice")).extracting(StoredTask::taskId).containsExactly("t1");
    assertThat(b.byOwner("op:bob")).isEmpty();
  }

  @Test
  void whenTwoNodesFinishOneTaskTheFirstOutcomeStays() throws Exception {
    String ns = ns();
    RedisTaskStore a = RedisTaskStore.builder(node(ns)).build();
    RedisTaskStore b = RedisTaskStore.builder(node(ns)).build();
    a.create(task("race", "op:alice", 60_000, Instant.now()));
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<?> done = pool.submit(() -> a.update("race", t -> t.finished(TaskStatus.COMPLETED,
          null, McpJson.object().put("by", "a"), null, Instant.now())));
      Future<?> cancelled = pool.submit(() -> b.update("race", t -> t.finished(
          TaskStatus.CANCELLED, "cancelled", null, null, Instant.now())));
      done.get();
      cancelled.get();
    } finally {
      pool.shutdownNow();
    }
    StoredTask end = a.get("race").orElseThrow();
    assertThat(end.status()).isIn(TaskStatus.COMPLETED, TaskStatus.CANCELLED);
    assertThat(b.get("race").orElseThrow()).isEqualTo(end);
    // terminal: nothing changes it any more, on any node
    b.update("race", t -> t.finished(TaskStatus.FAILED, "late", null, null, Instant.now()));
    assertThat(a.get("race").orElseThrow()).isEqualTo(end);
  }

  @Test
  void aWorkingTaskWhoseNodeStoppedFailsWhenItIsNextRead() {
    String ns = ns();
    RedisCluster dying = node(ns);
    RedisTaskStore onDying = RedisTaskStore.builder(dying).build();
    RedisTaskStore other = RedisTaskStore.builder(node(ns)).build();
    onDying.create(task("orphan", "op:alice", 60_000, Instant.now()));
    assertThat(other.get("orphan").orElseThrow().status()).isEqualTo(TaskStatus.WORKING);
    dying.close();
    opened.remove(dying);
    await().atMost(Duration.ofSeconds(5)).until(() ->
        other.get("orphan").orElseThrow().status() == TaskStatus.FAILED);
    StoredTask failed = other.get("orphan").orElseThrow();
    assertThat(failed.statusMessage()).isEqualTo("The node running the task stopped");
    assertThat(failed.error().path("message").asString()).contains("node");
  }

  @Test
  void theOwnersLimitHoldsAcrossNodes() {
    String ns = ns();
    RedisTaskStore a = RedisTaskStore.builder(node(ns)).maxTasksPerOwner(2).build();
    RedisTaskStore b = RedisTaskStore.builder(node(ns)).maxTasksPerOwner(2).build();
    Instant now = Instant.now();
    assertThat(a.create(task("x1", "op:alice", 60_000, now))).isTrue();
    assertThat(b.create(task("x2", "op:alice", 60_000, now.plusMillis(1)))).isTrue();
    assertThat(a.create(task("x3", "op:alice", 60_000, now.plusMillis(2)))).isFalse();
    assertThat(b.create(task("y1", "op:bob", 60_000, now))).isTrue();
    assertThat(a.byOwner("op:alice")).extracting(StoredTask::taskId).containsExactly("x1", "x2");
  }

  @Test
  void anExpiredTaskIsSweptOnceWhicheverNodeSweeps() {
    String ns = ns();
    RedisTaskStore a = RedisTaskStore.builder(node(ns)).build();
    RedisTaskStore b = RedisTaskStore.builder(node(ns)).build();
    Instant past = Instant.now().minusSeconds(120);
    a.create(task("old", "op:alice", 60_000, past));
    a.create(task("new", "op:alice", 600_000, Instant.now()));
    List<String> byB = b.removeExpired(Instant.now());
    List<String> byA = a.removeExpired(Instant.now());
    assertThat(byB).containsExactly("old");
    assertThat(byA).isEmpty();
    assertThat(a.get("old")).isEmpty();
    assertThat(b.size()).isEqualTo(1);
  }
}
