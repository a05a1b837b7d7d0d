package dev.keel.mcp.server;

import static dev.keel.mcp.server.EngineFixture.answer;
import static dev.keel.mcp.server.EngineFixture.isError;
import static dev.keel.mcp.server.EngineFixture.resultOf;
import static dev.keel.mcp.server.EngineFixture.textOf;
import static dev.keel.mcp.server.EngineFixture.toolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.ServerSession;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ToolTimeoutAndInterruptTest {

  private static final Duration SERVER_TIMEOUT = Duration.ofMillis(200);

  private final CountDownLatch sleeperStarted = new CountDownLatch(1);
  private final AtomicBoolean sleeperInterrupted = new AtomicBoolean();
  private final AtomicReference<String> sleeperReason = new AtomicReference<>();
  private final AtomicBoolean sleeperFinished = new AtomicBoolean();

  /** Counted down by the test once its cancel notification was handled. */
  private final CountDownLatch cancelDelivered = new CountDownLatch(1);
  private final CountDownLatch pollerStarted = new CountDownLatch(1);
  private final AtomicReference<Boolean> pollerInterrupted = new AtomicReference<>();

  private EngineFixture fixture;
  private ServerSession session;
  private final CollectingStream stream = CollectingStream.open();

  @BeforeEach
  void buildServer() {
    fixture = new EngineFixture(McpServer.builder()
        .handlerTimeout(SERVER_TIMEOUT)
        .maxInFlightRequests(2)
        .tool(Tool.builder("sleeper").build(), (ctx, args) -> {
          sleeperStarted.countDown();
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException e) {
            sleeperInterrupted.set(true);
            sleeperReason.set(ctx.cancellation().reason());
            throw e;
          }
          sleeperFinished.set(true);
          return CallToolResult.text("finished");
        })
        .tool(Tool.builder("patient").build(),
            ToolOptions.defaults().withTimeout(Duration.ofSeconds(5)), (ctx, args) -> {
              Thread.sleep(SERVER_TIMEOUT.toMillis() * 3);
              return CallToolResult.text("finished after 600 ms");
            })
        .tool(Tool.builder("hasty").build(),
            ToolOptions.defaults().withTimeout(Duration.ofMillis(50)), (ctx, args) -> {
              Thread.sleep(30_000);
              return CallToolResult.text("finished");
            })
        .tool(Tool.builder("polite").build(), ToolOptions.defaults().withoutInterrupt(),
            this::pollUntilCancelled)
        .tool(Tool.builder("interruptible").build(), this::pollUntilCancelled)
        .tool(Tool.builder("chatty").build(), ToolOptions.defaults().withoutInterrupt(),
            (ctx, args) -> {
              ctx.log(LoggingLevel.WARNING, "before");
              ctx.progress(1, 10.0, "one");
              pollUntilCancelled(ctx, args);
              ctx.log(LoggingLevel.WARNING, "after");
              ctx.log(LoggingLevel.ERROR, "logger", EngineFixture.JSON.parse("{\"x\":1}"));
              ctx.progress(5, 10.0, "five");
              return CallToolResult.text("done anyway");
            })
        .tool(Tool.builder("echo").build(), (ctx, args) -> CallToolResult.text("echo"))
        // The same with a timeout a loaded machine cannot miss by accident.
        .tool(Tool.builder("echo_timed").build(),
            ToolOptions.defaults().withTimeout(Duration.ofSeconds(1)),
            (ctx, args) -> CallToolResult.text("echo"))
        .build());
    session = fixture.initialize(Principal.local(), EngineFixture.NOTHING);
  }

  @AfterEach
  void closeServer() {
    fixture.close();
  }

  /**
   * Waits, without reacting to interrupts, until the token trips and the test has finished
   * delivering the cancel; then records whether the thread was interrupted.
   */
  private CallToolResult pollUntilCancelled(RequestContext ctx, Object args) {
    pollerStarted.countDown();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!ctx.cancellation().isCancelled() && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    while (cancelDelivered.getCount() > 0 && System.nanoTime() < deadline) {
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
    pollerInterrupted.set(Thread.currentThread().isInterrupted());
    return CallToolResult.text("stopped");
  }

  private Future<Optional<JsonRpcMessage>> start(RequestId id, String tool) {
    return fixture.handleAsync(session, toolCall(id, tool, null), stream);
  }

  @Test
  void inv30_aToolBlockedPastTheHandlerTimeoutIsInterruptedAndAnsweredWithAToolError()
      throws Exception {
    long started = System.nanoTime();
    Optional<JsonRpcMessage> response = answer(start(RequestId.of(1), "sleeper"));
    long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(response.get().id()).isEqualTo(RequestId.of(1));
    assertThat(isError(resultOf(response))).isTrue();
    assertThat(textOf(resultOf(response))).isEqualTo("Tool sleeper timed out after 200 ms");
    assertThat(sleeperInterrupted).isTrue();
    assertThat(sleeperReason.get()).isEqualTo("timeout");
    assertThat(sleeperFinished).isFalse();
    assertThat(tookMillis).isBetween(150L, 2_000L);
    // The timer thread counts the cancellation just after it interrupts the handler.
    await().atMost(Duration.ofSeconds(1))
        .until(() -> fixture.server.metrics().cancellations() == 1);
    assertThat(fixture.server.metrics().inFlightRequests()).isZero();
  }

  @Test
  void inv30_aPerToolTimeoutShorterThanTheServerDefaultWins() throws Exception {
    Optional<JsonRpcMessage> response = answer(start(RequestId.of(2), "hasty"));

    assertThat(isError(resultOf(response))).isTrue();
    assertThat(textOf(resultOf(response))).isEqualTo("Tool hasty timed out after 50 ms");
  }

  @Test
  void inv30_aPerToolTimeoutLongerThanTheServerDefaultWins() throws Exception {
    Optional<JsonRpcMessage> response = answer(start(RequestId.of(3), "patient"));

    assertThat(isError(resultOf(response))).isFalse();
    assertThat(textOf(resultOf(response))).isEqualTo("finished after 600 ms");
    assertThat(fixture.server.metrics().cancellations()).isZero();
  }

  @Test
  void aToolThatFinishesInTimeIsNotCancelledByItsTimerAfterwards() throws Exception {
    Optional<JsonRpcMessage> response = fixture.handle(session,
        toolCall(RequestId.of(4), "echo_timed", null), stream);
    // Nothing can signal that a timer did not fire: wait past the timeout it would fire at.
    Thread.sleep(1_100);

    assertThat(textOf(resultOf(response))).isEqualTo("echo");
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    assertThat(fixture.server.metrics().cancellations()).isZero();
  }

  @Test
  void withoutInterruptACancellationTripsTheTokenButLeavesTheThreadAlone() throws Exception {
    Future<Optional<JsonRpcMessage>> running = start(RequestId.of(5), "polite");
    assertThat(pollerStarted.await(2, TimeUnit.SECONDS)).isTrue();

    fixture.cancel(session, RequestId.of(5), stream);
    cancelDelivered.countDown();

    assertThat(answer(running)).as("a cancelled request gets no response").isEmpty();
    assertThat(pollerInterrupted.get()).isFalse();
    assertThat(stream.messages).isEmpty();
  }

  @Test
  void byDefaultACancellationAlsoInterruptsTheThread() throws Exception {
    Future<Optional<JsonRpcMessage>> running = start(RequestId.of(6), "interruptible");
    assertThat(pollerStarted.await(2, TimeUnit.SECONDS)).isTrue();

    fixture.cancel(session, RequestId.of(6), stream);
    cancelDelivered.countDown();

    assertThat(answer(running)).isEmpty();
    assertThat(pollerInterrupted.get()).isTrue();
  }

  @Test
  void aCancelledRequestSendsNothingMore() throws Exception {
    Future<Optional<JsonRpcMessage>> running = fixture.handleAsync(session,
        toolCall(RequestId.of(7), "chatty", "\"_meta\":{\"progressToken\":\"tok\"}"), stream);
    assertThat(pollerStarted.await(2, TimeUnit.SECONDS)).isTrue();
    assertThat(stream.methods())
        .containsExactly("notifications/message", "notifications/progress");

    fixture.cancel(session, RequestId.of(7), stream);
    cancelDelivered.countDown();

    assertThat(answer(running)).isEmpty();
    assertThat(pollerInterrupted.get()).isFalse();
    assertThat(stream.methods())
        .as("nothing after the cancellation: no log, no progress, no response")
        .containsExactly("notifications/message", "notifications/progress");
  }

  @Test
  void cancellationsCountEachCancelledRequestOnceAndInFlightReturnsToZero() throws Exception {
    ServerMetrics metrics = fixture.server.metrics();
    Future<Optional<JsonRpcMessage>> running = start(RequestId.of(8), "sleeper");
    assertThat(sleeperStarted.await(2, TimeUnit.SECONDS)).isTrue();
    assertThat(metrics.inFlightRequests()).isEqualTo(1);

    fixture.cancel(session, RequestId.of(8), stream);
    fixture.cancel(session, RequestId.of(8), stream);
    assertThat(answer(running)).isEmpty();
    fixture.cancel(session, RequestId.of(8), stream); // finished: nothing to cancel
    fixture.handle(session, toolCall(RequestId.of(9), "echo", null), stream);

    assertThat(metrics.cancellations()).isEqualTo(1);
    assertThat(metrics.inFlightRequests()).isZero();
    assertThat(sleeperReason.get()).isEqualTo("client: stop");

    Optional<JsonRpcMessage> timedOut = answer(start(RequestId.of(10), "hasty"));
    assertThat(isError(resultOf(timedOut))).isTrue();
    await().atMost(Duration.ofSeconds(1)).until(() -> metrics.cancellations() == 2);
    assertThat(metrics.inFlightRequests()).isZero();
  }

  @Test
  void aCancelFromAnotherSessionCountsNothing() throws Exception {
    ServerSession other = fixture.initialize(Principal.local(), EngineFixture.NOTHING);
    Future<Optional<JsonRpcMessage>> running = start(RequestId.of(11), "polite");
    assertThat(pollerStarted.await(2, TimeUnit.SECONDS)).isTrue();

    fixture.cancel(other, RequestId.of(11), stream);

    assertThat(fixture.server.metrics().cancellations()).isZero();
    assertThat(running.isDone()).isFalse();
    fixture.cancel(session, RequestId.of(11), stream);
    cancelDelivered.countDown();
    assertThat(answer(running)).isEmpty();
    assertThat(fixture.server.metrics().cancellations()).isEqualTo(1);
  }

  @Test
  void startRefusesPastTheInFlightLimitCountsTheRefusalAndAFinishedCallFreesItsSlot()
      throws Exception {
    dev.keel.mcp.server.transport.Edge edge = dev.keel.mcp.server.transport.Edge.of(session,
        Principal.local(), dev.keel.mcp.core.protocol.Era.LEGACY);
    AnswerStream first = new AnswerStream();
    AnswerStream second = new AnswerStream();
    assertThat(fixture.engine.call(edge, toolCall(RequestId.of(31), "sleeper", null))
        .start(first, false)).isTrue();
    assertThat(sleeperStarted.await(2, TimeUnit.SECONDS)).isTrue();
    assertThat(fixture.engine.call(edge, toolCall(RequestId.of(32), "echo", null))
        .start(second, false)).isTrue();
    second.await();

    AnswerStream refused = new AnswerStream();
    dev.keel.mcp.server.transport.ServerCall busy = fixture.engine.call(edge,
        toolCall(RequestId.of(33), "sleeper", null));
    // the sleeper holds one slot; the echo freed its own
    assertThat(busy.start(refused, false)).isTrue();
    AnswerStream third = new AnswerStream();
    assertThat(fixture.engine.call(edge, toolCall(RequestId.of(34), "echo", null))
        .start(third, false)).isFalse();
    assertThat(third.finished()).as("a refused call is never answered by the engine").isFalse();
    assertThat(fixture.server.metrics().refusedRequests()).isEqualTo(1);
    fixture.cancel(session, RequestId.of(31), stream);
    fixture.cancel(session, RequestId.of(33), stream);
    assertThat(first.await()).isEmpty();
    assertThat(refused.await()).isEmpty();
  }


  @Test
  void aTimedOutToolThatIgnoresItsInterruptIsStillAnsweredWithTheTimeout() throws Exception {
    AtomicBoolean carriedOn = new AtomicBoolean();
    CountDownLatch ignoring = new CountDownLatch(1);
    fixture.server.addTool(Tool.builder("stubborn").build(),
        ToolOptions.defaults().withTimeout(Duration.ofMillis(100)), (ctx, args) -> {
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException ignored) {
            ignoring.countDown();
          }
          carriedOn.set(true);
          return CallToolResult.text("result after the timeout");
        });

    Optional<JsonRpcMessage> response = answer(start(RequestId.of(12), "stubborn"));

    assertThat(ignoring.getCount()).isZero();
    assertThat(carriedOn).isTrue();
    assertThat(textOf(resultOf(response))).isEqualTo("Tool stubborn timed out after 100 ms");
    await().atMost(Duration.ofSeconds(1))
        .until(() -> fixture.server.metrics().inFlightRequests() == 0);
  }
}
