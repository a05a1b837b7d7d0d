package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpJson;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 17, Done when 3: a node killed with SIGKILL loses no session the others can serve and
 * leaves no task {@code working} forever; a Redis that stops gives a clear 503 within a second
 * to what needs it, and the nodes use it again when it returns, without a restart. Each test has
 * a cluster of its own: it breaks it.
 */
class ClusterFaultsTest {

  private ClusterNodes cluster;

  @BeforeEach
  void start() throws Exception {
    cluster = ClusterNodes.start();
  }

  @AfterEach
  void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  private String echo(String session, int id, String text) throws Exception {
    ClusterNodes.Answer a = cluster.post(session, null,
        ClusterNodes.call(id, "echo", "{\"text\":\"" + text + "\"}"));
    assertThat(a.status()).as("echo %s via %s: %s", id, a.servedBy(), a.body()).isEqualTo(200);
    return a.json().at("/result/content/0/text").asString();
  }

  @Test
  void aKilledNodesSessionsKeepWorkingOnTheOthersAndItsRunningTasksFail() throws Exception {
    ClusterNodes.Answer doomed = cluster.initialize(null, "{}");
    char home = doomed.servedBy().charAt(0);
    cluster.steer(ClusterNodes.next(String.valueOf(home)));
    ClusterNodes.Answer survivor = cluster.initialize(null, "{}");
    assertThat(survivor.servedBy()).isNotEqualTo(doomed.servedBy());
    // a task of the doomed node's session, running there
    ClusterNodes.Answer created = cluster.post(doomed.session(), null, "{\"jsonrpc\":\"2.0\","
        + "\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow_compute\","
        + "\"arguments\":{\"seconds\":120},\"task\":{\"ttl\":600000}}}");
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String taskId = created.json().at("/result/task/taskId").asString();
    assertThat(created.json().at("/result/task/status").asString()).isEqualTo("working");
    for (int i = 0; i < 3; i++) {
      assertThat(echo(doomed.session(), 10 + i, "before " + i)).isEqualTo("before " + i);
    }

    cluster.node(home).process().destroyForcibly();
    assertThat(cluster.node(home).process().waitFor(10, TimeUnit.SECONDS)).isTrue();

    // every call of both sessions goes on through the two nodes left
    for (int i = 0; i < 9; i++) {
      assertThat(echo(doomed.session(), 20 + i, "after " + i)).isEqualTo("after " + i);
      assertThat(echo(survivor.session(), 40 + i, "other " + i)).isEqualTo("other " + i);
    }
    // the task its node ran cannot finish: it fails, on every node that is asked
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(250)).until(() -> {
      ClusterNodes.Answer status = cluster.post(doomed.session(), null, "{\"jsonrpc\":\"2.0\","
          + "\"id\":99,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"" + taskId + "\"}}");
      return status.json().at("/result/status").asString().equals("failed");
    });
    ClusterNodes.Answer result = cluster.post(doomed.session(), null, "{\"jsonrpc\":\"2.0\","
        + "\"id\":100,\"method\":\"tasks/result\",\"params\":{\"taskId\":\"" + taskId + "\"}}");
    assertThat(result.json().at("/error/message").asString()).contains("node");

    // a node stopped on purpose (SIGTERM, a rolling restart) leaves its sessions to the last one
    char stopped = survivor.servedBy().charAt(0);
    assertThat(cluster.node(stopped).terminate()).isZero();
    for (int i = 0; i < 6; i++) {
      assertThat(echo(doomed.session(), 60 + i, "last " + i)).isEqualTo("last " + i);
      assertThat(echo(survivor.session(), 70 + i, "last " + i)).isEqualTo("last " + i);
    }
  }

  @Test
  void aStoppedRedisGives503WithinASecondAndTheNodesUseItAgainWhenItReturns() throws Exception {
    ClusterNodes.Answer session = cluster.initialize(null, "{}");
    char home = session.servedBy().charAt(0);
    // the node after the next one: the next one carried notifications/initialized, and a node
    // that forwarded a request of the session keeps its listing for two seconds (no store needed)
    char other = ClusterNodes.next(String.valueOf(ClusterNodes.next(String.valueOf(home))));
    URI homeUrl = URI.create(cluster.node(home).url());
    URI otherUrl = URI.create(cluster.node(other).url());

    cluster.redis.kill();

    long start = System.nanoTime();
    ClusterNodes.Answer refused = cluster.post(otherUrl, session.session(), null,
        ClusterNodes.call(1, "echo", "{\"text\":\"x\"}"));
    Duration took = Duration.ofNanos(System.nanoTime() - start);
    assertThat(refused.status()).as(refused.body()).isEqualTo(503);
    assertThat(refused.raw().headers().firstValue("Retry-After")).isPresent();
    assertThat(refused.body()).contains("shared store");
    assertThat(took).isLessThan(Duration.ofSeconds(1));

    start = System.nanoTime();
    ClusterNodes.Answer init = cluster.post(otherUrl, null, null, "{\"jsonrpc\":\"2.0\","
        + "\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
        + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    assertThat(init.status()).as(init.body()).isEqualTo(503);
    assertThat(init.session()).isNull();

    // a task lives in the store: its operations say so, on the node that holds the session too
    ClusterNodes.Answer task = cluster.post(homeUrl, session.session(), null, "{\"jsonrpc\":"
        + "\"2.0\",\"id\":3,\"method\":\"tasks/get\",\"params\":{\"taskId\":\"any\"}}");
    assertThat(task.json().at("/error/message").asString()).contains("shared store");

    // what needs no store goes on: the session on its own node
    ClusterNodes.Answer local = cluster.post(homeUrl, session.session(), null,
        ClusterNodes.call(2, "echo", "{\"text\":\"at home\"}"));
    assertThat(local.status()).as(local.body()).isEqualTo(200);
    await().atMost(Duration.ofSeconds(5)).until(() -> health(otherUrl).path("status")
        .asString().equals("degraded"));

    cluster.redis.run();

    // no node restarted: new sessions, and the old one on every node, once renewals put its
    // listing back into the empty Redis
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(500))
        .ignoreExceptions().untilAsserted(() -> {
          cluster.initialize(null, "{}");
          for (int i = 0; i < 3; i++) {
            assertThat(echo(session.session(), 10 + i, "back " + i)).isEqualTo("back " + i);
          }
        });
    assertThat(health(otherUrl).path("status").asString()).isEqualTo("ok");
  }

  private JsonNode health(URI node) throws Exception {
    URI health = node.resolve("/health");
    return McpJson.standard().parse(cluster.http.send(java.net.http.HttpRequest
        .newBuilder(health).GET().build(), java.net.http.HttpResponse.BodyHandlers.ofString())
        .body());
  }
}
