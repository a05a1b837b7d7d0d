package dev.keel.mcp.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

class OutboundRequestsTest {

  private static final Duration LONG = Duration.ofSeconds(10);

  private final ExecutorService executor = Executors.newCachedThreadPool();

  @AfterEach
  void stopThreads() {
    executor.shutdownNow();
  }

  private static JsonRpcResponse result(RequestId id, String key, int value) {
    ObjectNode result = JsonNodeFactory.instance.objectNode().put(key, value);
    return new JsonRpcResponse(id, result);
  }

  private static Throwable failureOf(Future<?> future) throws Exception {
    try {
      future.get(5, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void idsAreUniqueIncreasingIntegers() {
    OutboundRequests table = new OutboundRequests(10);

    RequestId first = table.start().id();
    RequestId second = table.start().id();
    RequestId third = table.start().id();

    assertThat(first).isEqualTo(RequestId.of(1));
    assertThat(second).isEqualTo(RequestId.of(2));
    assertThat(third).isEqualTo(RequestId.of(3));
    assertThat(table.size()).isEqualTo(3);
  }

  @Test
  void idsAreNotReusedAfterARequestCompletes() {
    OutboundRequests table = new OutboundRequests(1);
    RequestId first = table.start().id();
    table.complete(result(first, "a", 1));

    RequestId second = table.start().id();

    assertThat(second).isEqualTo(RequestId.of(2));
  }

  @Test
  void awaitReturnsTheResultOfTheMatchingResponse() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();

    boolean completed = table.complete(result(pending.id(), "answer", 42));
    JsonNode answer = pending.await("roots/list", LONG, CancellationToken.none());

    assertThat(completed).isTrue();
    assertThat(answer.get("answer").intValue()).isEqualTo(42);
    assertThat(table.size()).isZero();
  }

  @Test
  void awaitBlocksUntilTheResponseArrivesFromAnotherThread() throws Exception {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    Future<JsonNode> waiter =
        executor.submit(() -> pending.await("roots/list", LONG, CancellationToken.none()));

    Thread.sleep(50);
    assertThat(waiter.isDone()).isFalse();
    table.complete(result(pending.id(), "n", 7));

    assertThat(waiter.get(5, TimeUnit.SECONDS).get("n").intValue()).isEqualTo(7);
  }

  @Test
  void inv58_unsolicitedResponseIdIsDiscarded() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();

    boolean unknownNumber = table.complete(result(RequestId.of(999), "x", 1));
    boolean sameDigitsAsString = table.complete(result(RequestId.of("1"), "x", 1));

    assertThat(pending.id()).isEqualTo(RequestId.of(1));
    assertThat(unknownNumber).isFalse();
    assertThat(sameDigitsAsString).isFalse();
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void inv58_duplicateResponseCompletesNothing() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();

    boolean first = table.complete(result(pending.id(), "v", 1));
    boolean duplicate = table.complete(result(pending.id(), "v", 2));

    assertThat(first).isTrue();
    assertThat(duplicate).isFalse();
    assertThat(pending.await("m", LONG, CancellationToken.none()).get("v").intValue())
        .isEqualTo(1);
  }

  @Test
  void errorResponseWithoutAnIdCompletesNothing() {
    OutboundRequests table = new OutboundRequests(10);
    table.start();

    boolean completed = table.complete(
        new JsonRpcErrorResponse(null, new JsonRpcError(-32700, "Parse error", null)));

    assertThat(completed).isFalse();
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void errorResponseBecomesMcpExceptionWithItsCodeMessageAndData() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    ObjectNode data = JsonNodeFactory.instance.objectNode().put("detail", "d");
    table.complete(new JsonRpcErrorResponse(pending.id(),
        new JsonRpcError(-32601, "Method not found", data)));

    McpException e = catchThrowableOfType(McpException.class,
        () -> pending.await("sampling/createMessage", LONG, CancellationToken.none()));

    assertThat(e.code()).isEqualTo(-32601);
    assertThat(e.getMessage()).isEqualTo("Method not found");
    assertThat(e.data().get("detail").stringValue()).isEqualTo("d");
  }

  @Test
  void awaitTimesOutAndTheLateResponseIsDiscarded() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();

    assertThatThrownBy(() -> pending.await("elicitation/create", Duration.ofMillis(50),
        CancellationToken.none()))
        .isInstanceOf(RequestTimeoutException.class)
        .hasMessage("elicitation/create got no answer within 50 ms");

    assertThat(table.size()).isZero();
    assertThat(table.complete(result(pending.id(), "late", 1))).isFalse();
  }

  @Test
  void trippingTheTokenWhileWaitingThrowsRequestCancelled() throws Exception {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    CancellationSource source = new CancellationSource(false);
    Future<JsonNode> waiter = executor.submit(() -> pending.await("roots/list", LONG, source));
    Thread.sleep(50);

    source.cancel("user gave up");
    Throwable failure = failureOf(waiter);

    assertThat(failure).isInstanceOf(RequestCancelledException.class)
        .hasMessage("cancelled: user gave up");
    assertThat(table.size()).isZero();
    assertThat(table.complete(result(pending.id(), "late", 1))).isFalse();
  }

  @Test
  void awaitWithAnAlreadyCancelledTokenThrowsAtOnce() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    CancellationSource source = new CancellationSource(false);
    source.cancel("before");

    long start = System.nanoTime();
    assertThatThrownBy(() -> pending.await("roots/list", LONG, source))
        .isInstanceOf(RequestCancelledException.class)
        .hasMessage("cancelled: before");

    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
    assertThat(table.size()).isZero();
  }

  @Test
  void interruptingTheWaiterThrowsRequestCancelledAndKeepsTheInterrupt() throws Exception {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    CompletableFuture<Boolean> stillInterrupted = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        pending.await("roots/list", LONG, CancellationToken.none());
        stillInterrupted.completeExceptionally(new AssertionError("await returned"));
      } catch (RequestCancelledException e) {
        stillInterrupted.complete(Thread.currentThread().isInterrupted());
      }
    });
    waiter.start();
    Thread.sleep(50);

    waiter.interrupt();

    assertThat(stillInterrupted.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(table.size()).isZero();
  }

  @Test
  void closeFailsWaitersWithConnectionClosed() throws Exception {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    Future<JsonNode> waiter =
        executor.submit(() -> pending.await("roots/list", LONG, CancellationToken.none()));
    Thread.sleep(50);

    table.close("session ended");
    Throwable failure = failureOf(waiter);

    assertThat(failure).isInstanceOf(ConnectionClosedException.class)
        .hasMessage("session ended");
    assertThat(table.size()).isZero();
  }

  @Test
  void closeFailsARequestThatWasNotYetAwaited() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();

    table.close("gone");

    assertThatThrownBy(() -> pending.await("roots/list", LONG, CancellationToken.none()))
        .isInstanceOf(ConnectionClosedException.class).hasMessage("gone");
  }

  @Test
  void closedTableRefusesNewStarts() {
    OutboundRequests table = new OutboundRequests(10);
    table.close("stdio ended");

    assertThatThrownBy(table::start)
        .isInstanceOf(ConnectionClosedException.class).hasMessage("stdio ended");
    assertThat(table.size()).isZero();
  }

  @Test
  void tableIsBoundedByMaxPending() {
    OutboundRequests table = new OutboundRequests(2);
    OutboundRequests.Pending first = table.start();
    table.start();

    assertThatThrownBy(table::start)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("2");
    assertThat(table.size()).isEqualTo(2);

    table.complete(result(first.id(), "v", 1));
    assertThat(table.start().id()).isEqualTo(RequestId.of(3));
  }

  @Test
  void abandonFreesTheSlotAndDiscardsALaterResponse() {
    OutboundRequests table = new OutboundRequests(1);
    OutboundRequests.Pending pending = table.start();

    pending.abandon();

    assertThat(table.size()).isZero();
    assertThat(table.complete(result(pending.id(), "late", 1))).isFalse();
    assertThat(table.start().id()).isEqualTo(RequestId.of(2));
  }

  @Test
  void concurrentStartsNeverShareAnId() throws Exception {
    OutboundRequests table = new OutboundRequests(10_000);
    java.util.Set<RequestId> ids = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.List<Future<?>> futures = new java.util.ArrayList<>();
    for (int t = 0; t < 8; t++) {
      futures.add(executor.submit(() -> {
        for (int i = 0; i < 500; i++) {
          ids.add(table.start().id());
        }
      }));
    }
    for (Future<?> f : futures) {
      f.get(10, TimeUnit.SECONDS);
    }

    assertThat(ids).hasSize(4000);
    assertThat(table.size()).isEqualTo(4000);
  }

  @Test
  void maxPendingMustBePositive() {
    assertThatThrownBy(() -> new OutboundRequests(0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void waiterIsReleasedPromptlyByClose() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    Future<?> waiter = executor.submit(() -> {
      try {
        pending.await("m", LONG, CancellationToken.none());
      } catch (ConnectionClosedException expected) {
        // the assertion is that it returns
      }
    });

    table.close("bye");

    await().atMost(Duration.ofSeconds(2)).until(waiter::isDone);
  }

  @Test
  void failEndsOnlyAWaitingRequestAndItsWaiterSeesTheFailure() {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    assertThat(table.isWaiting(pending.id())).isTrue();
    assertThat(table.isWaiting(null)).isFalse();
    assertThat(table.isWaiting(RequestId.of(999))).isFalse();
    assertThat(table.fail(null, new IllegalStateException("x"))).isFalse();
    assertThat(table.fail(RequestId.of(999), new IllegalStateException("x"))).isFalse();

    assertThat(table.fail(pending.id(), new IllegalStateException("stream broke"))).isTrue();
    assertThat(table.isWaiting(pending.id())).isFalse();
    assertThat(table.fail(pending.id(), new IllegalStateException("again"))).isFalse();
    assertThatThrownBy(() -> pending.await("tools/call", LONG, CancellationToken.none()))
        .isInstanceOf(IllegalStateException.class).hasMessage("stream broke");
  }

  @Test
  void whenAnsweredCompletesWithTheResponse() throws Exception {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    JsonRpcResponse response = new JsonRpcResponse(pending.id(),
        JsonNodeFactory.instance.objectNode());
    table.complete(response);
    assertThat(pending.whenAnswered().toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isSameAs(response);
  }

  @Test
  void anInterruptedWaiterWithoutAReasonSaysInterrupted() throws Exception {
    OutboundRequests table = new OutboundRequests(10);
    OutboundRequests.Pending pending = table.start();
    CompletableFuture<String> message = new CompletableFuture<>();
    Thread waiter = new Thread(() -> {
      try {
        pending.await("roots/list", LONG, new CancellationSource());
      } catch (RequestCancelledException e) {
        message.complete(e.getMessage());
      }
    });
    waiter.start();
    await().atMost(Duration.ofSeconds(5))
        .until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
    waiter.interrupt();
    assertThat(message.get(5, TimeUnit.SECONDS)).contains("interrupted");
  }
}
