package dev.keel.mcp.server.internal.tasks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStatus;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * The task engine alone, on the default store: who may see a task, how many one principal may
 * run, the ttl it gets, and what happens to a task whose handler runs on another node (no run
 * here, only its stored state), which the HTTP and Redis tests reach only through a second
 * process.
 */
class TaskEngineTest {

  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** A clock the test moves by hand. */
  static final class HandClock extends Clock {
    volatile Instant now = T0;

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  /** What the engine asked other nodes to do. */
  static final class RecordingRelay implements TaskEngine.Relay {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void cancel(String taskId, String reason) {
      calls.add("cancel " + taskId + " " + reason);
    }

    @Override
    public void answer(String taskId, ObjectNode answers) {
      calls.add("answer " + taskId + " " + answers);
    }
  }

  final HandClock clock = new HandClock();
  final RecordingRelay relay = new RecordingRelay();
  final List<StoredTask> changes = new CopyOnWriteArrayList<>();
  final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
  InMemoryTaskStore store = new InMemoryTaskStore(100, 100);
  TaskEngine engine;

  TaskEngine engine(int maxActive) {
    engine = new TaskEngine(store, new TaskEngine.Limits(Duration.ofSeconds(60),
        Duration.ofSeconds(300), Duration.ofMillis(750), maxActive), clock, timer, changes::add,
        relay);
    return engine;
  }

  @AfterEach
  void stop() {
    if (engine != null) {
      engine.close();
    }
    timer.shutdownNow();
  }

  /** A task another node created: in the shared store, with no run in this process. */
  StoredTask elsewhere(String id, TaskStatus status, ObjectNode inputRequests) {
    StoredTask t = new StoredTask(id, "alice", null, true, status, null, T0, T0, 60_000, 500,
        inputRequests, null, null);
    assertThat(store.create(t)).isTrue();
    return t;
  }

  static ObjectNode questions(String... keys) {
    ObjectNode q = McpJson.object();
    for (String k : keys) {
      q.putObject(k).put("method", "elicitation/create");
    }
    return q;
  }

  @Test
  void aPrincipalRunsAtMostItsLimitAndAFinishedRunFreesItsPlace() throws Exception {
    engine(2);
    TaskEngine.Created one = engine.create("alice", null, true, null, false);
    TaskEngine.Created two = engine.create("alice", null, true, null, false);
    assertThat(one.refusal()).isNull();
    assertThat(two.refusal()).isNull();
    assertThat(engine.create("alice", null, true, null, false).refusal())
        .isEqualTo(TaskEngine.Refusal.TOO_MANY_ACTIVE);
    assertThat(engine.create("bob", null, true, null, false).refusal()).isNull();
    assertThat(engine.running()).isEqualTo(3);

    CountDownLatch ran = new CountDownLatch(1);
    engine.start(one.run(), () -> {
      one.run().complete(McpJson.object(), false);
      ran.countDown();
    });
    assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
    one.run().ended().get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> engine.running() == 2);
    assertThat(engine.create("alice", null, true, null, false).refusal()).isNull();
    assertThat(engine.create("alice", null, true, null, false).refusal())
        .isEqualTo(TaskEngine.Refusal.TOO_MANY_ACTIVE);
  }

  /**
   * A principal whose last run ended, or whose task was refused, is no longer counted: else
   * the counts grow with every principal that ever ran a task.
   */
  @Test
  void aPrincipalRunningNothingIsNoLongerCounted() throws Exception {
    store = new InMemoryTaskStore(2, 2);
    engine(2);
    TaskEngine.Created alice = engine.create("alice", null, true, null, false);
    TaskEngine.Created bob = engine.create("bob", null, true, null, false);
    assertThat(engine.create("carol", null, true, null, false).refusal())
        .isEqualTo(TaskEngine.Refusal.STORE_FULL);
    assertThat(engine.countedPrincipals()).as("alice and bob run; carol was refused")
        .isEqualTo(2);
    for (TaskEngine.Created c : List.of(alice, bob)) {
      engine.start(c.run(), () -> c.run().complete(McpJson.object(), false));
      c.run().ended().get(5, TimeUnit.SECONDS);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> engine.running() == 0);
    assertThat(engine.countedPrincipals()).isZero();
  }

  @Test
  void theTtlIsTheDefaultUnlessAskedAndNeverMoreThanTheMaximum() {
    engine(10);
    assertThat(engine.create("a", null, true, null, false).seed().ttlMillis()).isEqualTo(60_000);
    assertThat(engine.create("a", null, true, 0L, false).seed().ttlMillis()).isEqualTo(60_000);
    assertThat(engine.create("a", null, true, -5L, false).seed().ttlMillis()).isEqualTo(60_000);
    assertThat(engine.create("a", null, true, 1L, false).seed().ttlMillis()).isEqualTo(1);
    assertThat(engine.create("a", null, true, 300_000L, false).seed().ttlMillis())
        .isEqualTo(300_000);
    assertThat(engine.create("a", null, true, 300_001L, false).seed().ttlMillis())
        .isEqualTo(300_000);
    StoredTask seed = engine.create("a", "s1", false, null, false).seed();
    assertThat(seed.pollIntervalMillis()).isEqualTo(750);
    assertThat(seed.status()).isEqualTo(TaskStatus.WORKING);
    assertThat(seed.sessionId()).isEqualTo("s1");
    assertThat(seed.modern()).isFalse();
    assertThat(seed.createdAt()).isEqualTo(T0);
    assertThat(store.get(seed.taskId())).contains(seed);
  }

  @Test
  void taskIdsAreLongAndUnguessable() {
    engine(10);
    String a = engine.create("a", null, true, null, false).seed().taskId();
    String b = engine.create("a", null, true, null, false).seed().taskId();
    assertThat(a).hasSize(43).isNotEqualTo(b).matches("[A-Za-z0-9_-]+");
  }

  @Test
  void aFullStoreRefusesAndGivesThePrincipalItsPlaceBack() {
    store = new InMemoryTaskStore(1, 1);
    engine(1);
    TaskEngine.Created first = engine.create("alice", null, true, null, false);
    assertThat(first.refusal()).isNull();
    TaskEngine.Created refused = engine.create("bob", null, true, null, false);
    assertThat(refused.refusal()).isEqualTo(TaskEngine.Refusal.STORE_FULL);
    assertThat(refused.run()).isNull();
    assertThat(refused.seed()).isNull();
    assertThat(engine.running()).isEqualTo(1);
    // bob's place was given back: once the store has room, bob's next task is not refused
    // as one too many.
    store.remove(first.seed().taskId());
    assertThat(engine.create("bob", null, true, null, false).refusal()).isNull();
  }

  @Test
  void aTaskExistsOnlyForItsOwnerAndItsSession() {
    engine(10);
    StoredTask legacy = engine.create("alice", "s1", false, null, false).seed();
    StoredTask modern = engine.create("alice", null, true, null, false).seed();
    assertThat(engine.find(legacy.taskId(), "alice", "s1")).isPresent();
    assertThat(engine.find(legacy.taskId(), "bob", "s1")).isEmpty();
    assertThat(engine.find(legacy.taskId(), "alice", "s2")).isEmpty();
    assertThat(engine.find(legacy.taskId(), "alice", null)).isEmpty();
    assertThat(engine.find(modern.taskId(), "alice", null)).isPresent();
    assertThat(engine.find(modern.taskId(), "alice", "s1")).isEmpty();
    assertThat(engine.find("no-such-task", "alice", null)).isEmpty();
    assertThat(engine.find(null, "alice", null)).isEmpty();
    assertThat(engine.list("alice", "s1")).containsExactly(legacy);
    assertThat(engine.list("alice", null)).containsExactly(modern);
    assertThat(engine.list("bob", null)).isEmpty();
  }

  @Test
  void anExpiredTaskIsGoneOnItsLastMillisecondAndItsRunIsStopped() throws Exception {
    engine(10);
    TaskEngine.Created c = engine.create("alice", null, true, 1_000L, false);
    clock.now = T0.plusMillis(999);
    assertThat(engine.find(c.seed().taskId(), "alice", null)).isPresent();
    assertThat(engine.list("alice", null)).hasSize(1);
    clock.now = T0.plusMillis(1_000);
    assertThat(engine.list("alice", null)).isEmpty();
    assertThat(engine.find(c.seed().taskId(), "alice", null)).isEmpty();
    assertThat(store.get(c.seed().taskId())).isEmpty();
    c.run().ended().get(1, TimeUnit.SECONDS);
    assertThat(c.run().cancellation().isCancelled()).isTrue();
    assertThat(c.run().cancellation().reason()).isEqualTo("task removed");
  }

  @Test
  void theSweepRemovesExpiredTasksAndStopsTheirRuns() throws Exception {
    engine(10);
    TaskEngine.Created c = engine.create("alice", null, true, 1_000L, false);
    TaskEngine.Created kept = engine.create("alice", null, true, null, false);
    clock.now = T0.plusMillis(1_000);
    c.run().ended().get(5, TimeUnit.SECONDS);
    assertThat(c.run().cancellation().isCancelled()).isTrue();
    assertThat(store.get(c.seed().taskId())).isEmpty();
    assertThat(store.get(kept.seed().taskId())).isPresent();
    assertThat(kept.run().ended()).isNotDone();
  }

  @Test
  void listenersHearStatusChangesOnlyAndAFailingListenerChangesNothing() {
    engine = new TaskEngine(store, new TaskEngine.Limits(Duration.ofSeconds(60),
        Duration.ofSeconds(300), Duration.ofMillis(750), 10), clock, timer, t -> {
          changes.add(t);
          throw new IllegalStateException("listener broke");
        }, relay);
    TaskRun run = engine.create("alice", null, true, null, false).run();
    run.clientAnswered(); // working stays working: nothing to tell
    assertThat(changes).isEmpty();
    run.askingClient();
    assertThat(changes).extracting(StoredTask::status).containsExactly(TaskStatus.INPUT_REQUIRED);
    run.complete(McpJson.object(), false);
    assertThat(changes).extracting(StoredTask::status)
        .containsExactly(TaskStatus.INPUT_REQUIRED, TaskStatus.COMPLETED);
    assertThat(run.ended()).isDone();
    assertThat(store.get(run.taskId()).orElseThrow().status()).isEqualTo(TaskStatus.COMPLETED);
  }

  @Test
  void cancellingALocalRunCancelsItHereAndNeverAsksAnotherNode() {
    engine(10);
    TaskRun run = engine.create("alice", null, true, null, false).run();
    engine.cancel(run.taskId(), "stop");
    assertThat(run.cancellation().isCancelled()).isTrue();
    assertThat(run.cancellation().reason()).isEqualTo("stop");
    assertThat(store.get(run.taskId()).orElseThrow().status()).isEqualTo(TaskStatus.CANCELLED);
    assertThat(relay.calls).isEmpty();
    assertThat(changes).extracting(StoredTask::status).containsExactly(TaskStatus.CANCELLED);
  }

  @Test
  void cancellingATaskRunningElsewhereMarksItCancelledAndAsksThatNode() {
    engine(10);
    elsewhere("t1", TaskStatus.WORKING, null);
    engine.cancel("t1", "stop");
    StoredTask t = store.get("t1").orElseThrow();
    assertThat(t.status()).isEqualTo(TaskStatus.CANCELLED);
    assertThat(t.statusMessage()).isEqualTo("The task was cancelled");
    assertThat(relay.calls).containsExactly("cancel t1 stop");
    assertThat(changes).containsExactly(t);
  }

  @Test
  void cancellingAnEndedOrUnknownTaskElsewhereChangesNothing() {
    engine(10);
    elsewhere("done", TaskStatus.COMPLETED, null);
    engine.cancel("done", "stop");
    engine.cancel("unknown", "stop");
    assertThat(store.get("done").orElseThrow().status()).isEqualTo(TaskStatus.COMPLETED);
    assertThat(store.get("unknown")).isEmpty();
    assertThat(relay.calls).isEmpty();
    assertThat(changes).isEmpty();
  }

  @Test
  void cancelHereAndAnswerHereTouchOnlyRunsOfThisNode() {
    engine(10);
    elsewhere("t1", TaskStatus.INPUT_REQUIRED, questions("q"));
    engine.cancelHere("t1", "stop");
    engine.answerHere("t1", questions("q"));
    assertThat(store.get("t1").orElseThrow().status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    assertThat(relay.calls).isEmpty();

    TaskRun run = engine.create("alice", null, true, null, false).run();
    engine.cancelHere(run.taskId(), "stop");
    assertThat(run.cancellation().reason()).isEqualTo("stop");
  }

  @Test
  void answersToATaskElsewhereShowThePartAnsweredGoneAndTravelOverTheRelay() {
    engine(10);
    elsewhere("t1", TaskStatus.INPUT_REQUIRED, questions("a", "b"));
    ObjectNode first = McpJson.object();
    first.putObject("a").put("action", "accept");
    first.putObject("never-asked").put("action", "accept");
    engine.answer("t1", first);
    StoredTask partly = store.get("t1").orElseThrow();
    assertThat(partly.status()).isEqualTo(TaskStatus.INPUT_REQUIRED);
    assertThat(partly.inputRequests().propertyNames()).containsExactly("b");
    assertThat(changes).isEmpty();
    assertThat(relay.calls).containsExactly("answer t1 " + first);

    ObjectNode second = McpJson.object();
    second.putObject("b").put("action", "decline");
    engine.answer("t1", second);
    StoredTask working = store.get("t1").orElseThrow();
    assertThat(working.status()).isEqualTo(TaskStatus.WORKING);
    assertThat(working.inputRequests()).isNull();
    assertThat(changes).containsExactly(working);
    assertThat(relay.calls).hasSize(2);
  }

  @Test
  void aMalformedAnswerToATaskElsewhereIsRefusedAndNothingTravels() {
    engine(10);
    elsewhere("t1", TaskStatus.INPUT_REQUIRED, questions("a"));
    ObjectNode bad = McpJson.object();
    bad.put("a", "yes");
    assertThatThrownBy(() -> engine.answer("t1", bad))
        .isInstanceOf(McpException.class).hasMessageContaining("Invalid input response: a");
    assertThat(store.get("t1").orElseThrow().inputRequests().has("a")).isTrue();
    assertThat(relay.calls).isEmpty();

    // a malformed answer to a key nobody asked is ignored, not refused
    ObjectNode stray = McpJson.object();
    stray.put("other", "yes");
    engine.answer("t1", stray);
    assertThat(store.get("t1").orElseThrow().inputRequests().has("a")).isTrue();
  }

  @Test
  void answersToATaskThatAsksNothingOrDoesNotExistGoNowhere() {
    engine(10);
    elsewhere("t1", TaskStatus.WORKING, null);
    engine.answer("t1", questions("a"));
    engine.answer("unknown", questions("a"));
    assertThat(relay.calls).isEmpty();
    assertThat(changes).isEmpty();
    assertThat(store.get("t1").orElseThrow().status()).isEqualTo(TaskStatus.WORKING);
  }

  @Test
  void answersReachingAStoredTaskThatNoLongerWaitsChangeNothingThere() {
    engine(10);
    // input requests recorded, but the status already moved on: the store keeps the task
    StoredTask t = new StoredTask("t1", "alice", null, true, TaskStatus.INPUT_REQUIRED, null, T0,
        T0, 60_000, 500, questions("a"), null, null);
    store.create(t);
    store.update("t1", s -> new StoredTask("t1", "alice", null, true, TaskStatus.WORKING, null,
        T0, T0, 60_000, 500, questions("a"), null, null));
    StoredTask before = store.get("t1").orElseThrow();
    engine.answer("t1", questions("a"));
    assertThat(store.get("t1")).contains(before);
    assertThat(changes).isEmpty();
  }

  @Test
  void anEndedSessionCancelsOnlyItsOwnRuns() {
    engine(10);
    TaskRun mine = engine.create("alice", "s1", false, null, false).run();
    TaskRun other = engine.create("alice", "s2", false, null, false).run();
    TaskRun modern = engine.create("alice", null, true, null, false).run();
    engine.sessionEnded("s1");
    assertThat(mine.cancellation().reason()).isEqualTo("session ended");
    assertThat(other.cancellation().isCancelled()).isFalse();
    assertThat(modern.cancellation().isCancelled()).isFalse();
  }

  @Test
  void aSessionRunsATaskUntilItsRunEnds() {
    engine(10);
    TaskRun mine = engine.create("alice", "s1", false, null, false).run();
    engine.create("alice", null, true, null, false);
    // a session whose tasks run cannot be ended where nothing may block (SelectorLane)
    assertThat(engine.runsFor("s1")).isTrue();
    assertThat(engine.runsFor("s2")).isFalse();
    engine.start(mine, () -> mine.complete(McpJson.object(), false));
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5))
        .until(() -> !engine.runsFor("s1"));
  }

  @Test
  void closingCancelsEveryRunAndLaterStartsFailTheTask() throws Exception {
    engine(10);
    TaskRun a = engine.create("alice", null, true, null, false).run();
    TaskRun b = engine.create("alice", null, true, null, false).run();
    engine.close();
    assertThat(a.cancellation().reason()).isEqualTo("server shutting down");
    assertThat(b.cancellation().reason()).isEqualTo("server shutting down");

    TaskEngine.Created late = engine.create("bob", null, true, null, false);
    engine.start(late.run(), () -> {
      throw new AssertionError("no thread takes work after close");
    });
    StoredTask failed = store.get(late.seed().taskId()).orElseThrow();
    assertThat(failed.status()).isEqualTo(TaskStatus.FAILED);
    assertThat(failed.error().get("code").asInt()).isEqualTo(-32603);
    assertThat(late.run().ended()).isDone();
    assertThat(engine.running()).isEqualTo(2);
  }

  @Test
  void theOperatorSeesTheLastTwoHundredTasksOldestFirst() {
    engine(10);
    for (int i = 0; i < TaskEngine.DESCRIBED + 5; i++) {
      engine.describe("t" + i, "tool" + i, "alice");
    }
    List<TaskEngine.Described> seen = engine.described();
    assertThat(seen).hasSize(TaskEngine.DESCRIBED);
    assertThat(seen.get(0)).isEqualTo(new TaskEngine.Described("t5", "tool5", "alice"));
    assertThat(seen.get(seen.size() - 1).taskId()).isEqualTo("t204");
  }

  @Test
  void aRunWhoseBodyRecordedNothingStillEnds() throws Exception {
    engine(10);
    TaskEngine.Created c = engine.create("alice", null, true, null, false);
    assertThat(engine.store()).isSameAs(store);
    assertThat(engine.run(c.seed().taskId())).containsSame(c.run());
    assertThat(engine.run("unknown")).isEmpty();
    engine.start(c.run(), () -> { });
    c.run().ended().get(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(5)).until(() -> engine.running() == 0);
    assertThat(engine.run(c.seed().taskId())).isEmpty();
  }

  @Test
  void answersToALocalRunGoToItsHandlerAndNeverOverTheRelay() throws Exception {
    engine(10);
    TaskRun run = engine.create("alice", null, true, null, false).run();
    java.util.concurrent.CompletableFuture<java.util.Map<String, tools.jackson.databind.JsonNode>>
        got = java.util.concurrent.CompletableFuture.supplyAsync(
            () -> run.collect(java.util.Map.of("a", (ObjectNode) questions("a").get("a"),
                "b", (ObjectNode) questions("b").get("b"))));
    await().atMost(Duration.ofSeconds(5)).until(() ->
        store.get(run.taskId()).orElseThrow().status() == TaskStatus.INPUT_REQUIRED);
    ObjectNode a = McpJson.object();
    a.putObject("a").put("action", "accept");
    engine.answer(run.taskId(), a);
    ObjectNode b = McpJson.object();
    b.putObject("b").put("action", "accept");
    engine.answerHere(run.taskId(), b);
    assertThat(got.get(5, TimeUnit.SECONDS)).containsOnlyKeys("a", "b");
    assertThat(relay.calls).isEmpty();
  }
}
