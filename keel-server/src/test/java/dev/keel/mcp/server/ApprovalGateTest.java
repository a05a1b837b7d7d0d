package dev.keel.mcp.server;

import static dev.keel.mcp.server.EngineFixture.JSON;
import static dev.keel.mcp.server.EngineFixture.answer;
import static dev.keel.mcp.server.EngineFixture.isError;
import static dev.keel.mcp.server.EngineFixture.resultOf;
import static dev.keel.mcp.server.EngineFixture.textOf;
import static dev.keel.mcp.server.EngineFixture.toolCall;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.transport.ServerSession;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class ApprovalGateTest {

  private static final String GATED_UNAVAILABLE =
      "Tool drop-table was not approved (unavailable); it did not run";
  private static final String GATED_DECLINED =
      "Tool drop-table was not approved (declined); it did not run";
  private static final String MANUAL_REFUSED = "Not approved: nothing was dropped";
  private static final String ARGUMENTS = "\"arguments\":{\"table\":\"orders\"}";

  private final AtomicBoolean gatedRan = new AtomicBoolean();
  private final AtomicBoolean manualRan = new AtomicBoolean();
  private EngineFixture fixture;

  @AfterEach
  void closeServer() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private EngineFixture server(Duration clientRequestTimeout) {
    fixture = new EngineFixture(McpServer.builder()
        .clientRequestTimeout(clientRequestTimeout)
        .tool(Tool.builder("drop-table").build(), ToolOptions.defaults().withApproval(),
            (ctx, args) -> {
              gatedRan.set(true);
              return CallToolResult.text("dropped " + args.get("table").stringValue());
            })
        .tool(Tool.builder("manual").build(), (ctx, args) -> {
          if (!ctx.requireApproval("Drop the table orders?")) {
            return CallToolResult.error(MANUAL_REFUSED);
          }
          manualRan.set(true);
          return CallToolResult.text("dropped by hand");
        })
        .build());
    return fixture;
  }

  private static int pendingOf(ServerSession session) {
    return ((RealServerSession) session).pending().size();
  }

  /**
   * Calls {@code tool}, waits for the elicitation it sends, answers it with what {@code reply}
   * makes of the elicitation's id, and returns the tool result.
   */
  private JsonNode callAnswering(String tool, Function<RequestId, JsonRpcMessage> reply)
      throws Exception {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> running =
        fixture.handleAsync(session, toolCall(RequestId.of(1), tool, ARGUMENTS), stream);
    JsonRpcRequest elicitation = stream.awaitRequest("elicitation/create", 1);

    Optional<JsonRpcMessage> ack = fixture.handle(session, reply.apply(elicitation.id()), stream);

    assertThat(ack).isEmpty();
    Optional<JsonRpcMessage> response = answer(running);
    assertThat(pendingOf(session)).isZero();
    assertThat(stream.requests("elicitation/create")).hasSize(1);
    return resultOf(response);
  }

  private static JsonRpcMessage accept(RequestId id, String content) {
    return new JsonRpcResponse(id, JSON.parse("{\"action\":\"accept\""
        + (content == null ? "" : ",\"content\":" + content) + "}"));
  }

  private static JsonRpcMessage action(RequestId id, String action) {
    return new JsonRpcResponse(id, JSON.parse("{\"action\":\"" + action + "\"}"));
  }

  @Test
  void inv35_withoutTheElicitationCapabilityTheToolIsRefusedAndNeverRuns() {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.NOTHING);
    CollectingStream stream = CollectingStream.open();

    JsonNode gated = resultOf(fixture.handle(session,
        toolCall(RequestId.of(1), "drop-table", ARGUMENTS), stream));
    JsonNode manual = resultOf(fixture.handle(session,
        toolCall(RequestId.of(2), "manual", null), stream));

    assertThat(isError(gated)).isTrue();
    assertThat(textOf(gated)).isEqualTo(GATED_UNAVAILABLE);
    assertThat(gatedRan).isFalse();
    assertThat(isError(manual)).isTrue();
    assertThat(textOf(manual)).isEqualTo(MANUAL_REFUSED);
    assertThat(manualRan).isFalse();
    assertThat(stream.messages).as("nothing was asked").isEmpty();
  }

  @Test
  void inv35_withoutASessionTheToolIsRefusedAndNeverRuns() {
    server(Duration.ofSeconds(5));
    CollectingStream stream = CollectingStream.open();

    JsonNode gated = resultOf(fixture.handle(null,
        toolCall(RequestId.of(1), "drop-table", ARGUMENTS), stream));

    assertThat(textOf(gated)).isEqualTo(GATED_UNAVAILABLE);
    assertThat(gatedRan).isFalse();
    assertThat(stream.messages).isEmpty();
  }

  @Test
  void inv35_whenTheStreamRefusesTheElicitationTheToolIsRefusedAndNeverRuns() {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream gone = CollectingStream.refusing();

    JsonNode gated = resultOf(fixture.handle(session,
        toolCall(RequestId.of(1), "drop-table", ARGUMENTS), gone));
    JsonNode manual = resultOf(fixture.handle(session,
        toolCall(RequestId.of(2), "manual", null), gone));

    assertThat(textOf(gated)).isEqualTo(GATED_UNAVAILABLE);
    assertThat(gatedRan).isFalse();
    assertThat(textOf(manual)).isEqualTo(MANUAL_REFUSED);
    assertThat(manualRan).isFalse();
    assertThat(gone.methods()).containsExactly("elicitation/create", "elicitation/create");
    assertThat(pendingOf(session)).as("the undelivered elicitation is abandoned").isZero();
  }

  @Test
  void inv35_whenNobodyAnswersInTimeTheToolIsRefusedAndNeverRuns() throws Exception {
    server(Duration.ofMillis(200));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();

    Optional<JsonRpcMessage> response = answer(fixture.handleAsync(session,
        toolCall(RequestId.of(1), "drop-table", ARGUMENTS), stream));

    assertThat(isError(resultOf(response))).isTrue();
    assertThat(textOf(resultOf(response))).isEqualTo(GATED_UNAVAILABLE);
    assertThat(gatedRan).isFalse();
    // the server withdraws the question it stopped waiting on, so the client stops asking
    assertThat(stream.methods()).containsExactly("elicitation/create", "notifications/cancelled");
    assertThat(pendingOf(session)).isZero();
  }

  @Test
  void inv35_whenTheSessionEndsWhileAskingTheToolNeverRuns() throws Exception {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> running = fixture.handleAsync(session,
        toolCall(RequestId.of(1), "drop-table", ARGUMENTS), stream);
    JsonRpcRequest elicitation = stream.awaitRequest("elicitation/create", 1);

    session.close();
    Optional<JsonRpcMessage> late =
        fixture.handle(session, accept(elicitation.id(), "{\"approve\":true}"), stream);
    answer(running);

    // Whether the request is answered at all depends on a race in RealServerSession.close()
    // (see ElicitationReplyTest.inv12_...); what must hold either way: the tool never ran.
    assertThat(late).isEmpty();
    assertThat(gatedRan).isFalse();
    assertThat(stream.methods()).containsExactly("elicitation/create");
  }

  @Test
  void theApprovalQuestionNamesTheToolAndAsksForABooleanApprove() throws Exception {
    server(Duration.ofSeconds(5));
    ServerSession session = fixture.initialize(Principal.local(), EngineFixture.ELICITATION);
    CollectingStream stream = CollectingStream.open();
    Future<Optional<JsonRpcMessage>> running = fixture.handleAsync(session,
        toolCall(RequestId.of(1), "drop-table", ARGUMENTS), stream);

    JsonRpcRequest elicitation = stream.awaitRequest("elicitation/create", 1);
    fixture.handle(session, action(elicitation.id(), "decline"), stream);
    answer(running);

    JsonNode params = elicitation.params();
    assertThat(params.get("message").stringValue())
        .isEqualTo("Allow the tool drop-table to run with these arguments?");
    assertThat(params.at("/requestedSchema/properties/approve/type").stringValue())
        .isEqualTo("boolean");
    assertThat(params.at("/requestedSchema/required/0").stringValue()).isEqualTo("approve");
    assertThat(params.at("/_meta/dev.keel~1preview")).isEqualTo(JSON.parse("{\"table\":\"orders\"}"));
  }

  @Test
  void inv36_anAcceptWithApproveFalseIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table",
        id -> accept(id, "{\"approve\":false}"));

    assertThat(isError(result)).isTrue();
    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_anAcceptWithoutContentIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> accept(id, null));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_anAcceptWhoseApproveIsNotTheBooleanTrueIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> accept(id, "{\"approve\":\"true\"}"));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_anAcceptWithoutAnApproveFieldIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> accept(id, "{\"ok\":true}"));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_aDeclineIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> action(id, "decline"));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_aDeclineCarryingApproveTrueIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> new JsonRpcResponse(id,
        JSON.parse("{\"action\":\"decline\",\"content\":{\"approve\":true}}")));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_aCancelCarryingApproveTrueIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> new JsonRpcResponse(id,
        JSON.parse("{\"action\":\"cancel\",\"content\":{\"approve\":true}}")));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_aCancelIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> action(id, "cancel"));

    assertThat(textOf(result)).isEqualTo(GATED_DECLINED);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_anUnknownActionIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> new JsonRpcResponse(id,
        JSON.parse("{\"action\":\"approve\",\"content\":{\"approve\":true}}")));

    assertThat(isError(result)).isTrue();
    assertThat(textOf(result)).isEqualTo(GATED_UNAVAILABLE);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_anErrorReplyIsRefused() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> new JsonRpcErrorResponse(id,
        new JsonRpcError(ErrorCodes.INTERNAL_ERROR, "client exploded", null)));

    assertThat(isError(result)).isTrue();
    assertThat(textOf(result)).isEqualTo(GATED_UNAVAILABLE);
    assertThat(gatedRan).isFalse();
  }

  @Test
  void inv36_anAcceptWithApproveTrueRunsTheTool() throws Exception {
    JsonNode result = callAnswering("drop-table", id -> accept(id, "{\"approve\":true}"));

    assertThat(isError(result)).isFalse();
    assertThat(textOf(result)).isEqualTo("dropped orders");
    assertThat(gatedRan).isTrue();
  }

  @Test
  void inv36_requireApprovalIsTrueOnlyForAnExplicitApproval() throws Exception {
    JsonNode declined = callAnswering("manual", id -> accept(id, "{\"approve\":false}"));
    assertThat(textOf(declined)).isEqualTo(MANUAL_REFUSED);
    assertThat(manualRan).isFalse();
    fixture.close();

    JsonNode errored = callAnswering("manual", id -> new JsonRpcErrorResponse(id,
        new JsonRpcError(ErrorCodes.INVALID_REQUEST, "no", null)));
    assertThat(textOf(errored)).isEqualTo(MANUAL_REFUSED);
    assertThat(manualRan).isFalse();
    fixture.close();

    JsonNode approved = callAnswering("manual", id -> accept(id, "{\"approve\":true}"));
    assertThat(isError(approved)).isFalse();
    assertThat(textOf(approved)).isEqualTo("dropped by hand");
    assertThat(manualRan).isTrue();
  }
}
