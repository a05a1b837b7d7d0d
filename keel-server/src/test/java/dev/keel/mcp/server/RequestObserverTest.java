package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.RequestObservation;
import dev.keel.mcp.core.RequestOutcome;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The server's observers: told on the thread that runs the handler, before and after it; given
 * the request's {@code _meta}; told of every outcome; and never able to break a request.
 */
class RequestObserverTest {

  private final List<String> events = new CopyOnWriteArrayList<>();
  private final List<RequestOutcome> outcomes = new CopyOnWriteArrayList<>();
  private final AtomicReference<Thread> observedOn = new AtomicReference<>();
  private final AtomicReference<Thread> handledOn = new AtomicReference<>();

  private McpServer server(RequestObserver... observers) {
    McpServer.Builder b = McpServer.builder()
        .tool(Tool.builder("where").inputSchema("{\"type\":\"object\"}").build(), (ctx, args) -> {
          handledOn.set(Thread.currentThread());
          events.add("handler");
          return CallToolResult.text("here");
        })
        .tool(Tool.builder("fail").inputSchema("{\"type\":\"object\"}").build(),
            (ctx, args) -> CallToolResult.error("no"));
    for (RequestObserver o : observers) {
      b.observer(o);
    }
    return b.build();
  }

  private RequestObserver recording(String name) {
    return request -> {
      observedOn.set(Thread.currentThread());
      events.add(name + " start " + request.method() + " " + request.target());
      return outcome -> {
        events.add(name + " end " + outcome.status());
        outcomes.add(outcome);
      };
    };
  }

  @Test
  void observersStartOnTheHandlersThreadAndEndInReverseOrder() throws Exception {
    try (EngineFixture f = new EngineFixture(server(recording("a"), recording("b")))) {
      ServerSession session = f.initialize(Principal.local(), EngineFixture.NOTHING);
      events.clear();
      outcomes.clear();
      Optional<JsonRpcMessage> answer = EngineFixture.answer(f.handleAsync(session,
          EngineFixture.toolCall(RequestId.of(7), "where",
              "\"_meta\":{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e4736-"
                  + "00f067aa0ba902b7-01\"}"), CollectingStream.open()));
      assertThat(EngineFixture.textOf(EngineFixture.resultOf(answer))).isEqualTo("here");
      assertThat(events).containsExactly("a start tools/call where",
          "b start tools/call where", "handler", "b end OK", "a end OK");
      assertThat(observedOn.get()).isSameAs(handledOn.get());
      assertThat(outcomes.get(0).duration()).isPositive();
    }
  }

  @Test
  void theRequestCarriesItsMetaEraSessionAndWhetherTheToolExists() throws Exception {
    AtomicReference<InboundRequest> seen = new AtomicReference<>();
    try (EngineFixture f = new EngineFixture(server(request -> {
      seen.set(request);
      return RequestObservation.NONE;
    }))) {
      ServerSession session = f.initialize(Principal.local(), EngineFixture.NOTHING);
      assertThat(seen.get().method()).isEqualTo("initialize");
      EngineFixture.answer(f.handleAsync(session, EngineFixture.toolCall(RequestId.of("x"),
          "where", "\"_meta\":{\"traceparent\":\"tp\"}"), CollectingStream.open()));
      InboundRequest r = seen.get();
      assertThat(r.toolName()).isEqualTo("where");
      assertThat(r.registered()).isTrue();
      assertThat(r.metaString("traceparent")).isEqualTo("tp");
      assertThat(r.era()).isEqualTo(Era.LEGACY);
      assertThat(r.sessionId()).isEqualTo(session.id());
      assertThat(r.protocolVersion()).isEqualTo("2025-06-18");
      assertThat(r.principal()).isEqualTo(Principal.local().fingerprint());
      assertThat(r.id()).isEqualTo(RequestId.of("x"));

      EngineFixture.answer(f.handleAsync(session, EngineFixture.toolCall(RequestId.of(2),
          "nobody-has-this", null), CollectingStream.open()));
      assertThat(seen.get().toolName()).isEqualTo("nobody-has-this");
      assertThat(seen.get().registered()).isFalse();
    }
  }

  @Test
  void everyOutcomeIsReportedToolErrorsAndJsonRpcErrorsIncluded() throws Exception {
    try (EngineFixture f = new EngineFixture(server(recording("a")))) {
      ServerSession session = f.initialize(Principal.local(), EngineFixture.NOTHING);
      assertThat(outcomes).singleElement()
          .satisfies(o -> assertThat(o.status()).isEqualTo(RequestOutcome.Status.OK));
      outcomes.clear();
      EngineFixture.answer(f.handleAsync(session, EngineFixture.toolCall(RequestId.of(1),
          "fail", null), CollectingStream.open()));
      Optional<JsonRpcMessage> unknown = f.handle(session, new JsonRpcRequest(RequestId.of(2),
          "no/such/method", null), CollectingStream.open());
      assertThat(unknown.orElseThrow()).isInstanceOf(JsonRpcErrorResponse.class);
      assertThat(outcomes).extracting(RequestOutcome::status).containsExactly(
          RequestOutcome.Status.TOOL_ERROR, RequestOutcome.Status.ERROR);
      assertThat(outcomes.get(0).errorType()).isEqualTo("tool_error");
      assertThat(outcomes.get(1).errorCode()).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
      assertThat(outcomes.get(1).errorType()).isEqualTo("-32601");
    }
  }

  @Test
  void anObserverThatThrowsBreaksNeitherTheRequestNorTheOtherObservers() throws Exception {
    RequestObserver throwsAtStart = request -> {
      throw new IllegalStateException("broken observer");
    };
    RequestObserver throwsAtEnd = request -> outcome -> {
      throw new IllegalStateException("broken observation");
    };
    try (EngineFixture f = new EngineFixture(server(throwsAtStart, recording("a"),
        throwsAtEnd))) {
      ServerSession session = f.initialize(Principal.local(), EngineFixture.NOTHING);
      events.clear();
      Optional<JsonRpcMessage> answer = EngineFixture.answer(f.handleAsync(session,
          EngineFixture.toolCall(RequestId.of(3), "where", null),
          CollectingStream.open()));
      assertThat(EngineFixture.textOf(EngineFixture.resultOf(answer))).isEqualTo("here");
      assertThat(events).containsExactly("a start tools/call where", "handler", "a end OK");
    }
  }
}
