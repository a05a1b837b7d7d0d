package dev.keel.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.bench.driver.Driver;
import dev.keel.bench.report.ClusterReport;
import dev.keel.bench.servers.BenchServer;
import dev.keel.bench.servers.BenchServer.Kind;
import dev.keel.mcp.redis.TestRedis;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster benchmark's smoke run ({@code keel-bench/run-cluster.sh} has the real one): Keel
 * with its state in a real Redis answers both scenarios with no errors beside the in-memory
 * node, and the report comes out with the ratio and the target. A second or two per run, no
 * thresholds.
 */
class ClusterBenchmarkSmokeTest {

  @TempDir
  Path dir;

  @Test
  void theRedisNodeAnswersBothScenariosAndTheReportIsWritten() throws Exception {
    Path results = dir.resolve("results.jsonl");
    try (TestRedis redis = TestRedis.start();
        BenchServer memory = BenchServer.start(Kind.KEEL, 0, 1_000);
        BenchServer shared = BenchServer.start(Kind.KEEL_REDIS, 0, 1_000, redis.uri())) {
      for (String[] s : List.of(new String[] {"echo64", "session"},
          new String[] {"stateless64", "modern"})) {
        for (Map.Entry<String, BenchServer> server : Map.of("keel", memory, "keel-redis", shared)
            .entrySet()) {
          Map<String, Object> r = Driver.run("--url", server.getValue().endpoint(), "--server",
              server.getKey(), "--label", s[0], "--scenario", "echo", "--style", s[1],
              "--warmup", "0", "--duration", "1", "--conns", "4", "--out", results.toString());
          assertThat(r.get("errors")).as("errors in %s", r).isEqualTo(0L);
          assertThat((Long) r.get("ok")).as("calls completed in %s", r).isPositive();
        }
      }
    }
    Files.writeString(results, "{\"server\":\"keel-redis\",\"scenario\":\"echo64-redis\","
        + "\"rep\":1,\"redisCommandsPerCall\":0.01}\n", java.nio.file.StandardOpenOption.APPEND);
    Path report = dir.resolve("benchmarks-cluster.md");
    ClusterReport.main(new String[] {"--results", results.toString(), "--out",
        report.toString()});
    String md = Files.readString(report);
    assertThat(md).contains("| legacy session `echo`, 64 connections | one node, state in Redis |",
        "| 2026-07-28 stateless `echo`, 64 connections | one node, in memory |", "≥ 0.5", "≥ 0.9")
        .containsPattern("one node, state in Redis \\| [0-9,]+ \\| [0-9.]+ \\| [0-9.]+ \\|");
  }
}
