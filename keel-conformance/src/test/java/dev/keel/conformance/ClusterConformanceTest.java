package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Issue 17, Done when 2: the official suites pass against three {@code keel fixtures --redis}
 * nodes behind a round-robin HAProxy, exactly as against one process: 0.1.16 {@code --suite all}
 * 32/32 and 0.2.0-alpha.12 37/37 with its 3 pending and 10 tasks scenarios, no WARNING. Every
 * scenario's requests are spread over the nodes: sessions are forwarded to the node that holds
 * them, tasks are read from Redis on any node, list changes reach every node.
 */
class ClusterConformanceTest {

  @Test
  void bothSuitesPassThroughTheBalancerAgainstThreeNodes() throws Exception {
    try (ClusterNodes cluster = ClusterNodes.start()) {
      ConformanceSuiteTest.bothSuitesPass(cluster.lb.endpoint().toString(), "three-nodes");
      // the suites' sessions really were spread: each node holds some of them
      io.lettuce.core.RedisClient redis = io.lettuce.core.RedisClient.create(cluster.redis.uri());
      try (var connection = redis.connect()) {
        java.util.Set<String> holders = new java.util.HashSet<>();
        for (String key : connection.sync().keys("keel:s:*")) {
          holders.add(connection.sync().hget(key, "node"));
        }
        assertThat(holders).as("nodes holding the suites' sessions").hasSize(3);
      } finally {
        redis.shutdown();
      }
    }
  }
}
