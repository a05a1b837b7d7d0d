package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The bounds of tasks over real HTTP: the store never holds more than its limits however many
 * tasks are created, and one principal cannot run more tasks at once than its cap.
 */
class TaskLimitsOverHttpTest {

  static final String TASKS = "{\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}";

  /** A store that remembers the most it ever held, in total and per owner. */
  static final class Watched implements TaskStore {
    final TaskStore inner;
    final AtomicInteger maxSize = new AtomicInteger();
    final Map<String, Integer> maxPerOwner = new ConcurrentHashMap<>();

    Watched(TaskStore inner) {
      this.inner = inner;
    }

    @Override
    public boolean create(StoredTask task) {
      boolean created = inner.create(task);
      maxSize.accumulateAndGet(inner.size(), Math::max);
      maxPerOwner.merge(task.owner(), inner.byOwner(task.owner()).size(), Math::max);
      return created;
    }

    @Override
    public Optional<StoredTask> get(String taskId) {
      return inner.get(taskId);
    }

    @Override
    public Optional<StoredTask> update(String taskId, UnaryOperator<StoredTask> change) {
      return inner.update(taskId, change);
    }

    @Override
    public List<StoredTask> byOwner(String owner) {
      return inner.byOwner(owner);
    }

    @Override
    public void remove(String taskId) {
      inner.remove(taskId);
    }

    @Override
    public List<String> removeExpired(Instant now) {
      return inner.removeExpired(now);
    }

    @Override
    public int size() {
      return inner.size();
    }
  }

  static JsonNode post(HttpClient client, int port, String who, String method, String name,
      String params) throws Exception {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\",\"params\":{"
        + params + ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":" + TASKS + "}}}";
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + "/mcp"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("Authorization", "Bearer " + who + "-secret")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (name != null) {
      request.header("Mcp-Name", name);
    }
    HttpResponse<String> response = client.send(request.build(),
        HttpResponse.BodyHandlers.ofString());
    String answer = response.body();
    // an answer that is not ready at once comes as an SSE stream (a busy machine); its
    // response is the last event's data
    if (response.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      answer = answer.substring(answer.lastIndexOf("data:") + "data:".length()).strip();
    }
    return McpJson.standard().parse(answer);
  }

  @Test
  void theStoreStaysWithinItsBoundsUnderTenThousandTaskCreations() throws Exception {
    Watched store = new Watched(TaskStore.inMemory(200, 120));
    try (McpServer server = TaskTools.register(McpServer.builder().taskStore(store)).build();
        McpHttpServer http = McpHttpServer.builder(server).port(0)
            .servlet(b -> b.authenticator(HttpGateTest::bearer)).start()) {
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      String first = null;
      String last = null;
      int created = 0;
      for (int i = 0; i < 10_000; i++) {
        String who = i % 2 == 0 ? "alice" : "bob";
        JsonNode answer = post(client, http.port(), who, "tools/call", "quick",
            "\"name\":\"quick\",\"arguments\":{}");
        if (answer.has("result")) {
          assertThat(answer.get("result").get("resultType").asString()).isEqualTo("task");
          created++;
          if (who.equals("alice")) {
            last = answer.get("result").get("taskId").asString();
            first = first == null ? last : first;
          }
        } else {
          // Only a principal at its running-task cap is refused; nothing else goes wrong.
          assertThat(answer.get("error").get("code").asInt()).isEqualTo(ErrorCodes.SERVER_ERROR);
        }
      }
      assertThat(created).isGreaterThan(9_000);
      assertThat(store.maxSize.get()).isLessThanOrEqualTo(200);
      assertThat(store.maxPerOwner.values()).allMatch(n -> n <= 120);
      assertThat(store.size()).isLessThanOrEqualTo(200);
      // The newest task is kept; the oldest made room long ago.
      String newest = last;
      JsonNode kept = post(client, http.port(), "alice", "tasks/get", newest,
          "\"taskId\":\"" + newest + "\"");
      assertThat(kept.get("result").get("taskId").asString()).isEqualTo(newest);
      JsonNode dropped = post(client, http.port(), "alice", "tasks/get", first,
          "\"taskId\":\"" + first + "\"");
      assertThat(dropped.get("error").get("code").asInt()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    }
  }

  @Test
  void onePrincipalCannotRunMoreTasksAtOnceThanItsCap() throws Exception {
    TaskTools.reset();
    try (McpServer server = TaskTools.register(McpServer.builder()
            .maxActiveTasksPerPrincipal(1)).build();
        McpHttpServer http = McpHttpServer.builder(server).port(0)
            .servlet(b -> b.authenticator(HttpGateTest::bearer)).start()) {
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
      String call = "\"name\":\"block\",\"arguments\":{}";
      JsonNode running = post(client, http.port(), "alice", "tools/call", "block", call);
      String id = running.get("result").get("taskId").asString();
      assertThat(TaskTools.blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
      JsonNode refused = post(client, http.port(), "alice", "tools/call", "block", call);
      assertThat(refused.get("error").get("code").asInt()).isEqualTo(ErrorCodes.SERVER_ERROR);
      assertThat(refused.get("error").get("message").asString())
          .isEqualTo("Too many running tasks");
      // Another principal has a cap of its own.
      JsonNode bobs = post(client, http.port(), "bob", "tools/call", "quick",
          "\"name\":\"quick\",\"arguments\":{}");
      assertThat(bobs.get("result").get("resultType").asString()).isEqualTo("task");
      post(client, http.port(), "alice", "tasks/cancel", id, "\"taskId\":\"" + id + "\"");
      assertThat(TaskTools.blockInterrupted.await(10, TimeUnit.SECONDS)).isTrue();
      org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> post(client, http.port(), "alice", "tools/call", "quick",
              "\"name\":\"quick\",\"arguments\":{}").has("result"));
    }
  }
}
