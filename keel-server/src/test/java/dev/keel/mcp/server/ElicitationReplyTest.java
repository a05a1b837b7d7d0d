package dev.keel.mcp.server;

import static dev.keel.mcp.server.EngineFixture.JSON;
import static dev.keel.mcp.server.EngineFixture.answer;
import static dev.keel.mcp.server.EngineFixture.resultOf;
import static dev.keel.mcp.server.EngineFixture.textOf;
import static dev.keel.mcp.server.EngineFixture.toolCall;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.transport.ServerSession;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

class ElicitationReplyTest {

  private final AtomicInteger answersSeen = new AtomicInteger();
  private EngineFixture fixture;

  @AfterEach
  void closeServer() {
    fixture.close();
  }

  /** A server whose tool "ask" asks the user for a name and returns what it got. */
  private void server(Duration clientRequestTimeout) {
    ObjectNode schema = McpJson.object();
    schema.put("type", "object");
    schema.putObject("properties").putObject("name").put("type", "string");
    fixture = new EngineFixture(McpServer.builder()
        .clientRequestTimeout(clientRequestTimeout)
        .tool(Tool.builder("ask").build(), (ctx, args) -> {
          ElicitResult result;
          try {
            result = ctx.elicit(ElicitRequest.form("Your name?", schema));
          } catch (RequestTimeoutException e) {
            return CallToolResult.text("no answer");
          }
          answersSeen.incrementAndGet();
          return CallToolResult.text("name=" + result.content().get("name").stringValue());
        })
        .build());
  }

  private static JsonRpcMessage named(RequestId id, String name) {
    return new JsonRpcResponse(id,
        JSON.parse("{\"action\":\"accept\",\"content\":{\"name\":\"" + name + "\"}}"));
  }

  private static int pendingOf(ServerSession session) {
    return ((RealServerSession) session).pending().size();
  }

  @Test
  void inv33_aReplyThroughAnotherSessionDoesNotCompleteThePendingElicitation()
      throws Exception {
    server(Duration.ofSeconds(5));
    ServerSession mine = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    ServerSession other = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();
    CollectingStream otherStream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> running =
        fixture.handleAsync(mine, toolCall(RequestId.of(1), "ask", null), stream);
    JsonRpcRequest elicitation = stream.awaitRequest("elicitation/create", 1);

    Optional<JsonRpcMessage> ack =
        fixture.handle(other, named(elicitation.id(), "mallory"), otherStream);

    assertThat(ack).isEmpty();
    assertThat(pendingOf(mine)).as("still waiting for its own session's reply").isEqualTo(1);
    assertThat(running.isDone()).isFalse();
    assertThat(otherStream.messages).isEmpty();

    fixture.handle(mine, named(elicitation.id(), "alice"), stream);

    assertThat(textOf(resultOf(answer(running)))).isEqualTo("name=alice");
    assertThat(answersSeen).hasValue(1);
    assertThat(pendingOf(mine)).isZero();
  }

  @Test
  void inv33_twoSessionsWaitingUnderTheSameIdEachGetOnlyTheirOwnReply() throws Exception {
    server(Duration.ofSeconds(5));
    ServerSession first = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    ServerSession second = fixture.initialize(Principal.of("bob"), EngineFixture.ELICITATION);
    CollectingStream firstStream = CollectingStream.open();
    CollectingStream secondStream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> firstCall =
        fixture.handleAsync(first, toolCall(RequestId.of(1), "ask", null), firstStream);
    Future<Optional<JsonRpcMessage>> secondCall =
        fixture.handleAsync(second, toolCall(RequestId.of(1), "ask", null), secondStream);
    RequestId firstId = firstStream.awaitRequest("elicitation/create", 1).id();
    RequestId secondId = secondStream.awaitRequest("elicitation/create", 1).id();
    assertThat(firstId).isEqualTo(secondId);

    fixture.engine.handle(second, Principal.of("bob"), named(secondId, "bob"), secondStream);

    assertThat(textOf(resultOf(answer(secondCall)))).isEqualTo("name=bob");
    assertThat(pendingOf(first)).isEqualTo(1);
    assertThat(firstCall.isDone()).isFalse();

    fixture.handle(first, named(firstId, "alice"), firstStream);

    assertThat(textOf(resultOf(answer(firstCall)))).isEqualTo("name=alice");
  }

  @Test
  void inv34_aDuplicateReplyAfterCompletionChangesNothingAndRaisesNothing() throws Exception {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> firstCall =
        fixture.handleAsync(session, toolCall(RequestId.of(1), "ask", null), stream);
    RequestId firstId = stream.awaitRequest("elicitation/create", 1).id();
    fixture.handle(session, named(firstId, "alice"), stream);
    assertThat(textOf(resultOf(answer(firstCall)))).isEqualTo("name=alice");
    Future<Optional<JsonRpcMessage>> secondCall =
        fixture.handleAsync(session, toolCall(RequestId.of(2), "ask", null), stream);
    RequestId secondId = stream.awaitRequest("elicitation/create", 2).id();
    int sentBefore = stream.messages.size();

    AtomicReference<Optional<JsonRpcMessage>> ack = new AtomicReference<>();
    assertThatCode(() -> ack.set(fixture.handle(session, named(firstId, "mallory"), stream)))
        .doesNotThrowAnyException();

    assertThat(ack.get()).isEmpty();
    assertThat(secondId).isNotEqualTo(firstId);
    assertThat(pendingOf(session)).as("the second elicitation still waits").isEqualTo(1);
    assertThat(secondCall.isDone()).isFalse();
    assertThat(stream.messages).hasSize(sentBefore);
    assertThat(answersSeen).hasValue(1);

    fixture.handle(session, named(secondId, "bob"), stream);

    assertThat(textOf(resultOf(answer(secondCall)))).isEqualTo("name=bob");
    assertThat(answersSeen).hasValue(2);
  }

  @Test
  void inv34_aLateReplyAfterTheTimeoutChangesNothingAndRaisesNothing() throws Exception {
    server(Duration.ofMillis(200));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> timedOut =
        fixture.handleAsync(session, toolCall(RequestId.of(1), "ask", null), stream);
    RequestId lateId = stream.awaitRequest("elicitation/create", 1).id();
    assertThat(textOf(resultOf(answer(timedOut)))).isEqualTo("no answer");
    assertThat(pendingOf(session)).isZero();
    Future<Optional<JsonRpcMessage>> next =
        fixture.handleAsync(session, toolCall(RequestId.of(2), "ask", null), stream);
    RequestId nextId = stream.awaitRequest("elicitation/create", 2).id();
    int sentBefore = stream.messages.size();

    AtomicReference<Optional<JsonRpcMessage>> ack = new AtomicReference<>();
    assertThatCode(() -> ack.set(fixture.handle(session, named(lateId, "too late"), stream)))
        .doesNotThrowAnyException();

    assertThat(ack.get()).isEmpty();
    assertThat(nextId).isNotEqualTo(lateId);
    assertThat(pendingOf(session)).isEqualTo(1);
    assertThat(next.isDone()).isFalse();
    assertThat(stream.messages).hasSize(sentBefore);
    assertThat(answersSeen).hasValue(0);

    fixture.handle(session, named(nextId, "in time"), stream);

    assertThat(textOf(resultOf(answer(next)))).isEqualTo("name=in time");
    assertThat(answersSeen).hasValue(1);
  }

  @Test
  void inv34_aReplyNobodyAskedForIsDiscardedSilently() {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();

    Optional<JsonRpcMessage> ack = fixture.handle(session, named(RequestId.of(1), "x"), stream);
    Optional<JsonRpcMessage> sessionless = fixture.handle(null, named(RequestId.of(1), "x"),
        stream);

    assertThat(ack).isEmpty();
    assertThat(sessionless).isEmpty();
    assertThat(stream.messages).isEmpty();
    assertThat(pendingOf(session)).isZero();
  }

  /**
   * Spec 3.2 and invariant 12: ending a session cancels every in-flight request, then aborts its
   * pending elicitations, and a cancelled request gets no response. A handler waiting on the
   * client must therefore find its token tripped when the wait fails, and its request must get
   * no answer.
   *
   * <p>Fails today: {@code RealServerSession.close()} fails the pending requests
   * ({@code pending.close}) before it runs the closer that cancels the in-flight requests
   * ({@code SessionTable.closed} then {@code InboundRequests.cancelAllFor}), so the handler
   * often wakes with a plain {@code ConnectionClosedException}, its token not yet tripped, runs
   * its fallback, and {@code handle} returns that result for a session that has ended (about
   * 40% of attempts here).
   */
  @Test
  void inv12_endingASessionCancelsItsRequestsBeforeAbortingTheirElicitations() throws Exception {
    AtomicInteger woke = new AtomicInteger();
    AtomicInteger wokeUncancelled = new AtomicInteger();
    ObjectNode schema = McpJson.object();
    schema.put("type", "object");
    fixture = new EngineFixture(McpServer.builder()
        .tool(Tool.builder("ask-or-guess").build(), (ctx, args) -> {
          try {
            ctx.elicit(ElicitRequest.form("Your name?", schema));
            return CallToolResult.text("answered");
          } catch (RuntimeException e) {
            woke.incrementAndGet();
            if (!ctx.cancellation().isCancelled()) {
              wokeUncancelled.incrementAndGet();
            }
            return CallToolResult.text("guessed after " + e.getClass().getSimpleName());
          }
        })
        .build());
    int answered = 0;

    for (int i = 0; i < 30; i++) {
      ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
      CollectingStream stream = CollectingStream.open();
      Future<Optional<JsonRpcMessage>> running =
          fixture.handleAsync(session, toolCall(RequestId.of(1), "ask-or-guess", null), stream);
      stream.awaitRequest("elicitation/create", 1);

      session.close();

      if (answer(running).isPresent()) {
        answered++;
      }
    }

    assertThat(woke).hasValue(30);
    assertThat(wokeUncancelled).as("handlers that saw the abort before the cancellation")
        .hasValue(0);
    assertThat(answered).as("requests of an ended session that were answered").isZero();
  }
}
