package dev.keel.mcp.server.internal.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * One task's live side: the outcome it records in each era, cancellation that wins over a late
 * result, and the stateless question-and-answer loop ({@code inputRequests} and
 * {@code tasks/update}) with its unique keys.
 */
class TaskRunTest {

  final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  final InMemoryTaskStore store = new InMemoryTaskStore(100, 100);
  final List<StoredTask> changes = new CopyOnWriteArrayList<>();
  final TaskEngine engine = new TaskEngine(store, new TaskEngine.Limits(Duration.ofSeconds(60),
      Duration.ofSeconds(300), Duration.ofMillis(500), 10),
      new TaskEngineTest.HandClock(), timer, changes::add, new TaskEngineTest.RecordingRelay());

  @AfterEach
  void stop() {
    engine.close();
    timer.shutdownNow();
  }

  TaskRun run(boolean modern) {
    return engine.create("alice", modern ? null : "s1", modern, null, false).run();
  }

  StoredTask stored(TaskRun run) {
    return store.get(run.taskId()).orElseThrow();
  }

  static ObjectNode question(String text) {
    ObjectNode q = McpJson.object();
    q.put("method", "elicitation/create");
    q.putObject("params").put("message", text);
    return q;
  }

  static ObjectNode accept(String... keys) {
    ObjectNode a = McpJson.object();
    for (String k : keys) {
      a.putObject(k).put("action", "accept");
    }
    return a;
  }

  @Test
  void aToolErrorFailsALegacyTaskAndCompletesAModernOne() {
    TaskRun legacy = run(false);
    TaskRun modern = run(true);
    ObjectNode result = McpJson.object().put("isError", true);
    legacy.complete(result, true);
    modern.complete(result, true);
    assertThat(stored(legacy).status()).isEqualTo(TaskStatus.FAILED);
    assertThat(stored(legacy).statusMessage()).isEqualTo("The tool reported an error");
    assertThat(stored(legacy).result()).isEqualTo(result);
    assertThat(stored(modern).status()).isEqualTo(TaskStatus.COMPLETED);

    TaskRun fine = run(false);
    fine.complete(McpJson.object(), false);
    assertThat(stored(fine).status()).isEqualTo(TaskStatus.COMPLETED);
    assertThat(stored(fine).statusMessage()).isNull();
  }

  @Test
  void aJsonRpcErrorFailsTheTaskWithCodeMessageAndData() {
    TaskRun run = run(true);
    run.fail(new JsonRpcError(-32602, "Invalid params", McpJson.object().put("field", "x")));
    StoredTask t = stored(run);
    assertThat(t.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(t.statusMessage()).isEqualTo("Invalid params");
    assertThat(t.error().get("code").asInt()).isEqualTo(-32602);
    assertThat(t.error().get("message").asString()).isEqualTo("Invalid params");
    assertThat(t.error().get("data").get("field").asString()).isEqualTo("x");

    TaskRun bare = run(true);
    bare.fail(new JsonRpcError(-32603, "Internal error", null));
    assertThat(stored(bare).error().has("data")).isFalse();
  }

  @Test
  void cancelWinsOnceAndTripsTheHandlersToken() {
    TaskRun run = run(true);
    assertThat(run.cancel("stop")).isTrue();
    assertThat(run.cancellation().isCancelled()).isTrue();
    assertThat(run.ended()).isDone();
    assertThat(run.cancel("again")).isFalse();
    run.complete(McpJson.object(), false);
    assertThat(stored(run).status()).isEqualTo(TaskStatus.CANCELLED);
    assertThat(run.cancellation().reason()).isEqualTo("stop");
  }

  @Test
  void aLegacyTaskWorksAgainOnlyWhenEveryQuestionToTheClientWasAnswered() {
    TaskRun run = run(false);
    run.askingClient();
    run.askingClient();
    assertThat(stored(run).status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    run.clientAnswered();
    assertThat(stored(run).status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    run.clientAnswered();
    assertThat(stored(run).status()).isEqualTo(TaskStatus.WORKING);
    // an extra answer does not leave a debt behind: the next question still asks
    run.clientAnswered();
    run.askingClient();
    assertThat(stored(run).status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    run.clientAnswered();
    assertThat(stored(run).status()).isEqualTo(TaskStatus.WORKING);
  }

  @Test
  void collectPublishesTheQuestionsAndReturnsEveryAnswerByTheHandlersKeys() throws Exception {
    TaskRun run = run(true);
    Map<String, ObjectNode> asked = new LinkedHashMap<>();
    asked.put("name", question("your name?"));
    asked.put("age", question("your age?"));
    CompletableFuture<Map<String, JsonNode>> got =
        CompletableFuture.supplyAsync(() -> run.collect(asked));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(run).status() == TaskStatus.INPUT_REQUIRED);
    assertThat(stored(run).inputRequests().propertyNames()).containsExactly("name", "age");

    run.answer(accept("name"));
    StoredTask partly = stored(run);
    assertThat(partly.status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    assertThat(partly.inputRequests().propertyNames()).containsExactly("age");
    assertThat(got).isNotDone();

    run.answer(accept("name")); // already answered: ignored
    run.answer(accept("age"));
    Map<String, JsonNode> answers = got.get(5, TimeUnit.SECONDS);
    assertThat(answers).containsOnlyKeys("name", "age");
    assertThat(answers.get("age").get("action").asString()).isEqualTo("accept");
    assertThat(stored(run).status()).isEqualTo(TaskStatus.WORKING);
    assertThat(stored(run).inputRequests()).isNull();
  }

  @Test
  void aKeyAskedAgainGetsANewWireKeyAndTheHandlerSeesItsOwn() throws Exception {
    TaskRun run = run(true);
    for (String wire : List.of("q", "q-2", "q-3")) {
      CompletableFuture<Map<String, JsonNode>> got =
          CompletableFuture.supplyAsync(() -> run.collect(Map.of("q", question("again?"))));
      await().atMost(Duration.ofSeconds(5)).until(() -> {
        ObjectNode open = stored(run).inputRequests();
        return open != null && open.has(wire);
      });
      run.answer(accept("q")); // the old key is not the open one any more (after the first)
      if (!wire.equals("q")) {
        assertThat(got).isNotDone();
        run.answer(accept(wire));
      }
      assertThat(got.get(5, TimeUnit.SECONDS)).containsOnlyKeys("q");
    }
  }

  @Test
  void anAnswerThatIsNotAnObjectIsRefusedAndTakesNothing() throws Exception {
    TaskRun run = run(true);
    CompletableFuture<Map<String, JsonNode>> got = CompletableFuture.supplyAsync(
        () -> run.collect(Map.of("a", question("a?"), "b", question("b?"))));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(run).status() == TaskStatus.INPUT_REQUIRED);
    ObjectNode mixed = accept("a");
    mixed.put("b", "yes");
    assertThatThrownBy(() -> run.answer(mixed))
        .isInstanceOf(McpException.class).hasMessageContaining("Invalid input response: b");
    assertThat(stored(run).inputRequests().propertyNames()).contains("a", "b");
    ObjectNode stray = McpJson.object().put("unknown", "ignored");
    run.answer(stray);
    assertThat(stored(run).inputRequests().propertyNames()).contains("a", "b");
    run.answer(accept("a", "b"));
    assertThat(got.get(5, TimeUnit.SECONDS)).containsOnlyKeys("a", "b");
  }

  @Test
  void cancellingOrRemovingTheTaskEndsAWaitingCollect() throws Exception {
    TaskRun cancelled = run(true);
    CompletableFuture<Map<String, JsonNode>> one =
        CompletableFuture.supplyAsync(() -> cancelled.collect(Map.of("a", question("a?"))));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(cancelled).status() == TaskStatus.INPUT_REQUIRED);
    cancelled.cancel("stop");
    assertThat(one).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
        .havingCause().isInstanceOf(RequestCancelledException.class);
    assertThat(stored(cancelled).status()).isEqualTo(TaskStatus.CANCELLED);

    TaskRun removed = run(true);
    CompletableFuture<Map<String, JsonNode>> two =
        CompletableFuture.supplyAsync(() -> removed.collect(Map.of("a", question("a?"))));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(removed).status() == TaskStatus.INPUT_REQUIRED);
    removed.ended(true);
    assertThat(two).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
        .havingCause().isInstanceOf(RequestCancelledException.class);
  }

  @Test
  void aRunThatEndedWithoutBeingRemovedEndsAWaitingCollectToo() throws Exception {
    TaskRun run = run(true);
    CompletableFuture<Map<String, JsonNode>> got =
        CompletableFuture.supplyAsync(() -> run.collect(Map.of("a", question("a?"))));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(run).status() == TaskStatus.INPUT_REQUIRED);
    run.ended(false);
    assertThat(run.cancellation().isCancelled()).isFalse();
    assertThat(got).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
        .havingCause().isInstanceOf(RequestCancelledException.class)
        .withMessageContaining("task ended");
  }

  @Test
  void theOutboxTagsEveryMessageWithItsTask() {
    TaskRun run = run(false);
    assertThat(run.outbox()).isNotNull();
    assertThat(run.modern()).isFalse();
    assertThat(run.sessionId()).isEqualTo("s1");
    assertThat(run.owner()).isEqualTo("alice");
  }

  @Test
  void aModernRunSaysSo() {
    assertThat(run(true).modern()).isTrue();
    assertThat(run(true).sessionId()).isNull();
  }

  @Test
  void aCollectCancelledMeanwhileEndsWithTheCancelsReason() throws Exception {
    TaskRun run = run(true);
    CompletableFuture<Map<String, JsonNode>> got =
        CompletableFuture.supplyAsync(() -> run.collect(Map.of("a", question("a?"))));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(run).status() == TaskStatus.INPUT_REQUIRED);
    run.cancel("the user stopped it");
    assertThat(got).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
        .havingCause().isInstanceOf(RequestCancelledException.class)
        .withMessageContaining("the user stopped it");
  }

  @Test
  void answersThatArriveAfterTheTokenTrippedAreNotHandedOver() throws Exception {
    TaskRun run = run(true);
    CompletableFuture<Map<String, JsonNode>> got =
        CompletableFuture.supplyAsync(() -> run.collect(Map.of("a", question("a?"))));
    await().atMost(Duration.ofSeconds(5))
        .until(() -> stored(run).status() == TaskStatus.INPUT_REQUIRED);
    // the token trips without waking the collector; the answer then wakes it
    run.cancellation().cancel("tripped");
    run.answer(accept("a"));
    assertThat(got).failsWithin(Duration.ofSeconds(5)).withThrowableThat()
        .havingCause().isInstanceOf(RequestCancelledException.class)
        .withMessageContaining("tripped");
  }

  @Test
  void everyStepReleasesTheRunsLock() throws Exception {
    TaskRun run = run(false);
    run.askingClient();
    run.clientAnswered();
    // another thread takes the same lock: it would wait forever on a lock left held
    CompletableFuture<Void> other = CompletableFuture.runAsync(() -> run.answer(accept("x")));
    other.get(5, TimeUnit.SECONDS);
    CompletableFuture.runAsync(run::askingClient).get(5, TimeUnit.SECONDS);
  }
}
