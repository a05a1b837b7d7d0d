package dev.keel.mcp.http;

import static dev.keel.mcp.http.TaskTools.errorCode;
import static dev.keel.mcp.http.TaskTools.message;
import static dev.keel.mcp.http.TaskTools.pollUntil;
import static dev.keel.mcp.http.TaskTools.result;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The 2026 tasks extension over real HTTP, stateless: the server makes a task of a call when the
 * request declares the extension, {@code tasks/get} inlines result, error or input requests,
 * {@code tasks/update} answers them, {@code tasks/cancel} stops the handler; tasks are bound to
 * their principal; ttl; status notifications on {@code subscriptions/listen}.
 */
class ModernTasksOverHttpTest {

  static final String TASKS = "{\"elicitation\":{},\"extensions\":"
      + "{\"io.modelcontextprotocol/tasks\":{}}}";

  static McpServer server;
  static McpHttpServer http;
  /** The same tools with a short ttl. */
  static McpServer shortLived;
  static McpHttpServer shortHttp;
  static final AtomicInteger ids = new AtomicInteger(100);

  @BeforeAll
  static void start() {
    server = TaskTools.register(McpServer.builder().taskPollInterval(Duration.ofMillis(50)))
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(HttpGateTest::bearer)).start();
    shortLived = TaskTools.register(McpServer.builder()
        .taskTtl(Duration.ofMillis(300), Duration.ofSeconds(1))).build();
    shortHttp = McpHttpServer.builder(shortLived).port(0)
        .servlet(b -> b.authenticator(HttpGateTest::bearer)).start();
  }

  @AfterAll
  static void stop() {
    shortHttp.close();
    shortLived.close();
    http.close();
    server.close();
  }

  @BeforeEach
  void fresh() {
    TaskTools.reset();
  }

  static String meta(String capabilities) {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":" + capabilities + "}";
  }

  static RawHttp.Response send(int port, String who, String method, String name,
      String params, String capabilities) throws IOException {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", "application/json");
    h.put("Accept", "application/json, text/event-stream");
    h.put("Authorization", "Bearer " + who + "-secret");
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", method);
    if (name != null) {
      h.put("Mcp-Name", name);
    }
    String body = "{\"jsonrpc\":\"2.0\",\"id\":" + ids.incrementAndGet() + ",\"method\":\""
        + method + "\",\"params\":{" + (params.isEmpty() ? "" : params + ",")
        + meta(capabilities) + "}}";
    return RawHttp.exchange(port, "POST", "/mcp", h, body);
  }

  static RawHttp.Response call(String who, String tool, String arguments) throws IOException {
    return send(http.port(), who, "tools/call", tool,
        "\"name\":\"" + tool + "\",\"arguments\":" + arguments, TASKS);
  }

  static RawHttp.Response onTask(String who, String method, String taskId, String extra)
      throws IOException {
    return onTask(http.port(), who, method, taskId, extra, TASKS);
  }

  static RawHttp.Response onTask(int port, String who, String method, String taskId,
      String extra, String capabilities) throws IOException {
    return send(port, who, method, taskId, "\"taskId\":\"" + taskId + "\""
        + (extra == null ? "" : "," + extra), capabilities);
  }

  static JsonNode get(String who, String taskId) throws IOException {
    return result(onTask(who, "tasks/get", taskId, null));
  }

  static String startTask(String tool, String arguments) throws IOException {
    JsonNode created = result(call("alice", tool, arguments));
    assertThat(created.get("resultType").asString()).isEqualTo("task");
    return created.get("taskId").asString();
  }

  @Test
  void aLongToolBecomesAFlatTaskThatIsPolledToCompletionWithTheResultInlined()
      throws IOException {
    JsonNode created = result(call("alice", "long", "{\"ms\":400}"));
    assertThat(created.get("resultType").asString()).isEqualTo("task");
    assertThat(created.get("status").asString()).isEqualTo("working");
    assertThat(created.get("ttlMs").isIntegralNumber()).isTrue();
    assertThat(created.get("pollIntervalMs").asLong()).isEqualTo(50);
    assertThat(created.has("requestState") || created.has("ttl") || created.has("pollInterval")
        || created.has("task")).isFalse();
    String id = created.get("taskId").asString();
    JsonNode working = get("alice", id);
    assertThat(working.get("resultType").asString()).isEqualTo("complete");
    assertThat(working.get("status").asString()).isEqualTo("working");
    assertThat(working.has("result")).isFalse();

    JsonNode done = pollUntil(() -> get("alice", id), "completed");
    assertThat(done.get("status").asString()).isEqualTo("completed");
    assertThat(done.get("result").get("content").get(0).get("text").asString())
        .isEqualTo("done after 400 ms in task " + id);
  }

  @Test
  void withoutTheExtensionACallRunsAtOnceAndTheTaskMethodsAreRefused() throws IOException {
    RawHttp.Response plain = send(http.port(), "alice", "tools/call", "quick",
        "\"name\":\"quick\",\"arguments\":{}", "{}");
    assertThat(result(plain).get("content").get(0).get("text").asString()).isEqualTo("quick");
    RawHttp.Response required = send(http.port(), "alice", "tools/call", "only_task",
        "\"name\":\"only_task\",\"arguments\":{}", "{}");
    assertThat(required.status()).isEqualTo(400);
    JsonNode error = message(required).get("error");
    assertThat(error.get("code").asInt())
        .isEqualTo(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY);
    assertThat(error.get("data").get("requiredCapabilities").get("extensions")
        .has("io.modelcontextprotocol/tasks")).isTrue();
    String id = startTask("quick", "{}");
    assertThat(errorCode(onTask(http.port(), "alice", "tasks/get", id, null, "{}")))
        .isEqualTo(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY);
    for (String removed : new String[] {"tasks/result", "tasks/list"}) {
      assertThat(errorCode(send(http.port(), "alice", removed, null,
          "\"taskId\":\"" + id + "\"", TASKS))).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
    }
    JsonNode discovered = result(send(http.port(), "alice", "server/discover", null, "", "{}"));
    assertThat(discovered.get("capabilities").has("tasks")).isFalse();
    assertThat(discovered.get("capabilities").get("extensions")
        .has("io.modelcontextprotocol/tasks")).isTrue();
  }

  @Test
  void aTaskThatNeedsInputShowsItsQuestionsAndResumesWithTasksUpdate() throws IOException {
    String id = startTask("ask", "{}");
    JsonNode waiting = pollUntil(() -> get("alice", id), "input_required");
    assertThat(waiting.get("status").asString()).isEqualTo("input_required");
    JsonNode question = waiting.get("inputRequests").get("confirm");
    assertThat(question.get("method").asString()).isEqualTo("elicitation/create");
    assertThat(question.get("params").get("message").asString()).isEqualTo("Go on?");

    // Unknown keys are ignored, and the task keeps waiting.
    JsonNode ack = result(onTask("alice", "tasks/update", id,
        "\"inputResponses\":{\"other\":{\"action\":\"accept\"}}"));
    assertThat(ack.get("resultType").asString()).isEqualTo("complete");
    assertThat(ack.has("status") || ack.has("taskId")).isFalse();
    assertThat(get("alice", id).get("status").asString()).isEqualTo("input_required");

    result(onTask("alice", "tasks/update", id,
        "\"inputResponses\":{\"confirm\":{\"action\":\"accept\",\"content\":{\"confirm\":true}}}"));
    JsonNode done = pollUntil(() -> get("alice", id), "completed");
    assertThat(done.get("result").get("content").get(0).get("text").asString())
        .isEqualTo("answer: accept/true");
    assertThat(done.has("inputRequests")).isFalse();
  }

  @Test
  void aCancelledTaskIsAcknowledgedEndsCancelledAndItsHandlerThreadIsInterrupted()
      throws Exception {
    String id = startTask("block", "{}");
    assertThat(TaskTools.blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
    JsonNode ack = result(onTask("alice", "tasks/cancel", id, null));
    assertThat(ack.get("resultType").asString()).isEqualTo("complete");
    assertThat(ack.has("status")).isFalse();
    assertThat(TaskTools.blockInterrupted.await(10, TimeUnit.SECONDS))
        .as("the handler's thread was interrupted").isTrue();
    assertThat(get("alice", id).get("status").asString()).isEqualTo("cancelled");
    // Cancelling an ended task is the same empty acknowledgement (extension spec).
    assertThat(result(onTask("alice", "tasks/cancel", id, null)).get("resultType").asString())
        .isEqualTo("complete");
  }

  @Test
  void aTaskThatEndsWithAJsonRpcErrorFailsWithTheErrorInlined() throws IOException {
    String id = startTask("boom", "{}");
    JsonNode failed = pollUntil(() -> get("alice", id), "failed");
    assertThat(failed.get("status").asString()).isEqualTo("failed");
    assertThat(failed.get("error").get("code").asInt()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(failed.get("error").get("message").asString())
        .isEqualTo("boom: the input is not usable");
    assertThat(failed.has("result")).isFalse();
  }

  @Test
  void anotherPrincipalSeesNothingOfATaskAndChangesNothing() throws IOException {
    String id = startTask("ask", "{}");
    JsonNode before = pollUntil(() -> get("alice", id), "input_required");
    for (String method : new String[] {"tasks/get", "tasks/cancel", "tasks/update"}) {
      RawHttp.Response r = onTask("bob", method, id, method.equals("tasks/update")
          ? "\"inputResponses\":{\"confirm\":{\"action\":\"decline\"}}" : null);
      assertThat(errorCode(r)).as(method).isEqualTo(ErrorCodes.INVALID_PARAMS);
      assertThat(message(r).get("error").get("message").asString()).isEqualTo("Task not found");
    }
    assertThat(message(onTask("bob", "tasks/get", "no-such-task", null)).get("error")
        .get("message").asString()).isEqualTo("Task not found");
    JsonNode after = get("alice", id);
    assertThat(after.get("status").asString()).isEqualTo("input_required");
    assertThat(after.get("inputRequests")).isEqualTo(before.get("inputRequests"));
    result(onTask("alice", "tasks/cancel", id, null));
  }

  @Test
  void aTaskIsGoneOnceItsTtlEnded() throws IOException {
    JsonNode created = result(send(shortHttp.port(), "alice", "tools/call", "quick",
        "\"name\":\"quick\",\"arguments\":{}", TASKS));
    assertThat(created.get("ttlMs").asLong()).isEqualTo(300);
    String id = created.get("taskId").asString();
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
        .until(() -> message(onTask(shortHttp.port(), "alice", "tasks/get", id, null, TASKS))
            .has("error"));
    assertThat(errorCode(onTask(shortHttp.port(), "alice", "tasks/get", id, null, TASKS)))
        .isEqualTo(ErrorCodes.INVALID_PARAMS);
  }

  @Test
  void aListeningClientIsToldOfItsTaskStatusChanges() throws Exception {
    String id = startTask("ask", "{}");
    pollUntil(() -> get("alice", id), "input_required");
    Map<String, String> h = new LinkedHashMap<>();
    h.put("Content-Type", "application/json");
    h.put("Accept", "application/json, text/event-stream");
    h.put("Authorization", "Bearer alice-secret");
    h.put("MCP-Protocol-Version", "2026-07-28");
    h.put("Mcp-Method", "subscriptions/listen");
    String listen = "{\"jsonrpc\":\"2.0\",\"id\":\"sub-1\",\"method\":\"subscriptions/listen\","
        + "\"params\":{\"notifications\":{\"taskIds\":[\"" + id + "\",\"not-mine\"]},"
        + meta(TASKS) + "}}";
    try (SseClient stream = SseClient.open(http.port(), "POST", h, listen)) {
      JsonNode ack = Peer.nextMessage(stream, 10_000);
      assertThat(ack.get("method").asString())
          .isEqualTo("notifications/subscriptions/acknowledged");
      assertThat(ack.get("params").get("notifications").get("taskIds")).hasSize(1);
      result(onTask("alice", "tasks/update", id,
          "\"inputResponses\":{\"confirm\":{\"action\":\"decline\"}}"));
      JsonNode last;
      do {
        last = Peer.nextMessage(stream, 10_000);
        assertThat(last.get("method").asString()).isEqualTo("notifications/tasks");
        assertThat(last.get("params").get("_meta").get("io.modelcontextprotocol/subscriptionId")
            .asString()).isEqualTo("sub-1");
      } while (!last.get("params").get("status").asString().equals("completed"));
      assertThat(last.get("params").get("taskId").asString()).isEqualTo(id);
      assertThat(last.get("params").get("result").get("content").get(0).get("text").asString())
          .isEqualTo("answer: decline/-");
    }
  }
}
