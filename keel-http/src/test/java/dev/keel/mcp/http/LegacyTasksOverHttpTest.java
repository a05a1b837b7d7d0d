package dev.keel.mcp.http;

import static dev.keel.mcp.http.TaskTools.errorCode;
import static dev.keel.mcp.http.TaskTools.message;
import static dev.keel.mcp.http.TaskTools.pollUntil;
import static dev.keel.mcp.http.TaskTools.result;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The 2025-11-25 tasks utility over real HTTP, in legacy sessions: a task-augmented
 * {@code tools/call} answered with a task at once, polled with {@code tasks/get}, its result from
 * {@code tasks/result}; input through the {@code tasks/result} stream; cancellation that stops the
 * handler; errors; ownership; ttl.
 */
class LegacyTasksOverHttpTest {

  static McpServer server;
  static McpHttpServer http;
  static Peer peer;
  static final AtomicInteger ids = new AtomicInteger(100);

  @BeforeAll
  static void start() {
    server = TaskTools.register(McpServer.builder().taskPollInterval(Duration.ofMillis(50)))
        .build();
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.authenticator(HttpGateTest::bearer)).start();
    peer = new Peer(http.port());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @BeforeEach
  void fresh() {
    TaskTools.reset();
  }

  static String taskCall(String tool, String arguments, String task) {
    return Peer.request(ids.incrementAndGet(), "tools/call", "{\"name\":\"" + tool
        + "\",\"arguments\":" + arguments + (task == null ? "" : ",\"task\":" + task) + "}");
  }

  static String byId(String method, String taskId) {
    return Peer.request(ids.incrementAndGet(), method, "{\"taskId\":\"" + taskId + "\"}");
  }

  static RawHttp.Response post(String who, String session, String body) throws IOException {
    return peer.post(who + "-secret", session, body);
  }

  static JsonNode get(String who, String session, String taskId) throws IOException {
    return result(post(who, session, byId("tasks/get", taskId)));
  }

  static String startTask(String who, String session, String tool, String args, String task)
      throws IOException {
    JsonNode created = result(post(who, session, taskCall(tool, args, task)));
    JsonNode t = created.get("task");
    assertThat(t).as("CreateTaskResult %s", created).isNotNull();
    assertThat(t.get("status").asString()).isEqualTo("working");
    return t.get("taskId").asString();
  }

  @Test
  void aLongToolRunsAsATaskThatIsPolledToCompletionAndItsResultCarriesTheTask()
      throws IOException {
    String session = peer.initialize("alice-secret");
    JsonNode created = result(post("alice", session,
        taskCall("long", "{\"ms\":400}", "{\"ttl\":60000}")));
    JsonNode task = created.get("task");
    String id = task.get("taskId").asString();
    assertThat(id).hasSizeGreaterThanOrEqualTo(43);
    assertThat(task.get("ttl").asLong()).isEqualTo(60_000);
    assertThat(task.get("pollInterval").asLong()).isEqualTo(50);
    assertThat(task.get("createdAt").asString()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    assertThat(get("alice", session, id).get("status").asString()).isEqualTo("working");

    JsonNode done = pollUntil(() -> get("alice", session, id), "completed");
    assertThat(done.get("status").asString()).isEqualTo("completed");
    JsonNode outcome = result(post("alice", session, byId("tasks/result", id)));
    assertThat(outcome.get("content").get(0).get("text").asString())
        .isEqualTo("done after 400 ms in task " + id);
    assertThat(outcome.get("_meta").get(MetaKeys.RELATED_TASK).get("taskId").asString())
        .isEqualTo(id);
    JsonNode list = result(post("alice", session,
        Peer.request(ids.incrementAndGet(), "tasks/list", "{}")));
    assertThat(list.get("tasks")).anyMatch(t -> t.get("taskId").asString().equals(id));
  }

  @Test
  void tasksResultBlocksUntilTheTaskEnds() throws IOException {
    String session = peer.initialize("alice-secret");
    String id = startTask("alice", session, "long", "{\"ms\":500}", "{}");
    long start = System.nanoTime();
    JsonNode outcome = result(post("alice", session, byId("tasks/result", id)));
    assertThat(outcome.get("content").get(0).get("text").asString()).startsWith("done after");
    assertThat(get("alice", session, id).get("status").asString()).isEqualTo("completed");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
  }

  @Test
  void aTaskThatNeedsInputAsksOnTheTasksResultStreamAndResumesWithTheAnswer()
      throws IOException {
    String session = peer.initialize("alice-secret", Peer.LATEST, Peer.ELICITATION);
    String id = startTask("alice", session, "ask", "{}", "{}");
    assertThat(pollUntil(() -> get("alice", session, id), "input_required")
        .get("status").asString()).isEqualTo("input_required");
    try (SseClient stream = peer.postStream("alice-secret", session, byId("tasks/result", id))) {
      JsonNode ask = Peer.nextMessage(stream, 10_000);
      assertThat(ask.get("method").asString()).isEqualTo("elicitation/create");
      assertThat(ask.get("params").get("_meta").get(MetaKeys.RELATED_TASK).get("taskId")
          .asString()).isEqualTo(id);
      RawHttp.Response reply = post("alice", session, "{\"jsonrpc\":\"2.0\",\"id\":"
          + ask.get("id") + ",\"result\":{\"action\":\"accept\",\"content\":{\"confirm\":true}}}");
      assertThat(reply.status()).isEqualTo(202);
      JsonNode outcome = Peer.response(stream, 10_000);
      assertThat(outcome.get("result").get("content").get(0).get("text").asString())
          .isEqualTo("answer: accept/true");
      assertThat(outcome.get("result").get("_meta").get(MetaKeys.RELATED_TASK).get("taskId")
          .asString()).isEqualTo(id);
    }
    assertThat(get("alice", session, id).get("status").asString()).isEqualTo("completed");
  }

  @Test
  void aCancelledTaskIsCancelledBeforeTheAnswerAndItsHandlerThreadIsInterrupted()
      throws Exception {
    String session = peer.initialize("alice-secret");
    String id = startTask("alice", session, "block", "{}", "{}");
    assertThat(TaskTools.blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
    JsonNode cancelled = result(post("alice", session, byId("tasks/cancel", id)));
    assertThat(cancelled.get("status").asString()).isEqualTo("cancelled");
    assertThat(TaskTools.blockInterrupted.await(10, TimeUnit.SECONDS))
        .as("the handler's thread was interrupted").isTrue();
    assertThat(get("alice", session, id).get("status").asString()).isEqualTo("cancelled");
    // Terminal: a second cancel is -32602 (2025-11-25), and there is no result to fetch.
    assertThat(errorCode(post("alice", session, byId("tasks/cancel", id))))
        .isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(errorCode(post("alice", session, byId("tasks/result", id))))
        .isEqualTo(ErrorCodes.INVALID_PARAMS);
  }

  @Test
  void aTaskThatEndsWithAJsonRpcErrorFailsAndTasksResultReturnsThatError() throws IOException {
    String session = peer.initialize("alice-secret");
    String id = startTask("alice", session, "boom", "{}", "{}");
    JsonNode failed = pollUntil(() -> get("alice", session, id), "failed");
    assertThat(failed.get("status").asString()).isEqualTo("failed");
    JsonNode error = message(post("alice", session, byId("tasks/result", id))).get("error");
    assertThat(error.get("code").asInt()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(error.get("message").asString()).isEqualTo("boom: the input is not usable");
  }

  @Test
  void anotherPrincipalOrSessionSeesNothingOfATaskAndChangesNothing() throws Exception {
    String alice = peer.initialize("alice-secret");
    String id = startTask("alice", alice, "block", "{}", "{}");
    assertThat(TaskTools.blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
    String bob = peer.initialize("bob-secret");
    String aliceAgain = peer.initialize("alice-secret");
    for (String[] other : new String[][] {{"bob", bob}, {"alice", aliceAgain}}) {
      for (String method : new String[] {"tasks/get", "tasks/result", "tasks/cancel"}) {
        RawHttp.Response r = post(other[0], other[1], byId(method, id));
        assertThat(errorCode(r)).as("%s by %s", method, other[0])
            .isEqualTo(ErrorCodes.INVALID_PARAMS);
        assertThat(message(r).get("error").get("message").asString())
            .isEqualTo("Task not found");
      }
      JsonNode list = result(post(other[0], other[1],
          Peer.request(ids.incrementAndGet(), "tasks/list", "{}")));
      assertThat(list.get("tasks")).isEmpty();
    }
    // An id that never existed is answered the same way: no oracle.
    assertThat(message(post("bob", bob, byId("tasks/get", "no-such-task"))).get("error")
        .get("message").asString()).isEqualTo("Task not found");
    assertThat(get("alice", alice, id).get("status").asString()).isEqualTo("working");
    assertThat(TaskTools.blockInterrupted.getCount()).isEqualTo(1);
    result(post("alice", alice, byId("tasks/cancel", id)));
  }

  @Test
  void aTaskIsGoneOnceItsTtlEnded() throws IOException {
    String session = peer.initialize("alice-secret");
    String id = startTask("alice", session, "quick", "{}", "{\"ttl\":300}");
    assertThat(pollUntil(() -> get("alice", session, id), "completed").get("ttl").asLong())
        .isEqualTo(300);
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(50))
        .until(() -> message(post("alice", session, byId("tasks/get", id))).has("error"));
    assertThat(errorCode(post("alice", session, byId("tasks/result", id))))
        .isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(result(post("alice", session,
        Peer.request(ids.incrementAndGet(), "tasks/list", "{}"))).get("tasks"))
        .noneMatch(t -> t.get("taskId").asString().equals(id));
  }

  @Test
  void taskSupportIsEnforcedPerToolAndDeclaredInTheListingAndCapabilities() throws IOException {
    RawHttp.Response init = peer.post("alice-secret", null,
        Peer.initializeBody(Peer.LATEST, "{}"));
    JsonNode tasks = result(init).get("capabilities").get("tasks");
    assertThat(tasks.has("list")).isTrue();
    assertThat(tasks.has("cancel")).isTrue();
    assertThat(tasks.get("requests").get("tools").has("call")).isTrue();
    String session = peer.initialize("alice-secret");
    assertThat(errorCode(post("alice", session, taskCall("plain", "{}", "{}"))))
        .isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
    assertThat(errorCode(post("alice", session, taskCall("only_task", "{}", null))))
        .isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
    assertThat(result(post("alice", session, taskCall("quick", "{}", null)))
        .get("content").get(0).get("text").asString()).isEqualTo("quick");
    JsonNode list = result(post("alice", session,
        Peer.request(ids.incrementAndGet(), "tools/list", "{}")));
    assertThat(list.get("tools")).anyMatch(t -> t.get("name").asString().equals("only_task")
        && t.get("execution").get("taskSupport").asString().equals("required"));
    assertThat(list.get("tools")).anyMatch(t -> t.get("name").asString().equals("plain")
        && !t.has("execution"));
  }

  @Test
  void aSessionWithAListeningStreamIsToldOfItsTaskStatusChanges() throws Exception {
    String session = peer.initialize("alice-secret");
    try (SseClient listening = peer.get("alice-secret", session)) {
      tools.jackson.databind.node.ObjectNode probe = dev.keel.mcp.core.McpJson.object();
      Peer.notifyWhenAttached(server, session, "notifications/message", probe);
      String id = startTask("alice", session, "long", "{\"ms\":100}", "{}");
      JsonNode last;
      do {
        last = Peer.nextMessage(listening, 10_000);
      } while (!last.get("method").asString().equals("notifications/tasks/status")
          || !last.get("params").get("status").asString().equals("completed"));
      assertThat(last.get("params").get("taskId").asString()).isEqualTo(id);
      assertThat(last.get("params").has("ttl")).isTrue();
    }
  }
}
