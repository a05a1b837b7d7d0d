package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/** Drives a server's engine the way a transport does, for tests. */
final class EngineFixture implements AutoCloseable {

  static final McpJson JSON = McpJson.standard();
  /** Client capabilities that answer form elicitation. */
  static final String ELICITATION = "{\"elicitation\":{}}";
  /** Client capabilities that declare nothing. */
  static final String NOTHING = "{}";

  final McpServer server;
  final ServerEngine engine;
  private final ExecutorService executor = Executors.newCachedThreadPool();

  EngineFixture(McpServer server) {
    this.server = server;
    this.engine = server.engine();
  }

  /** Opens a session for {@code principal} whose client declared {@code capabilities}. */
  ServerSession initialize(Principal principal, String capabilities) {
    InitializeOutcome outcome = engine.initialize(principal,
        new JsonRpcRequest(RequestId.of(0), "initialize", JSON.parseObject(
            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":" + capabilities
                + ",\"clientInfo\":{\"name\":\"test-client\",\"version\":\"1.0\"}}")),
        null);
    assertThat(outcome.response()).isInstanceOf(JsonRpcResponse.class);
    assertThat(outcome.session()).isNotNull();
    return outcome.session();
  }

  /** Returns a {@code tools/call} request. */
  static JsonRpcRequest toolCall(RequestId id, String name, String extraParams) {
    return new JsonRpcRequest(id, "tools/call", JSON.parseObject("{\"name\":\"" + name + "\""
        + (extraParams == null ? "" : "," + extraParams) + "}"));
  }

  /** Handles a message on the calling thread, as the local principal. */
  Optional<JsonRpcMessage> handle(ServerSession session, JsonRpcMessage message,
      MessageStream stream) {
    return engine.handle(session, Principal.local(), message, stream);
  }

  /** Handles a request on another thread, as a transport does for a handler that may block. */
  Future<Optional<JsonRpcMessage>> handleAsync(ServerSession session, JsonRpcMessage message,
      MessageStream stream) {
    return executor.submit(() -> handle(session, message, stream));
  }

  /** Sends {@code notifications/cancelled} for {@code id} in {@code session}. */
  Optional<JsonRpcMessage> cancel(ServerSession session, RequestId id, MessageStream stream) {
    String requestId = id.isNumber() ? id.value().toString() : "\"" + id.value() + "\"";
    return handle(session, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":" + requestId + ",\"reason\":\"stop\"}")), stream);
  }

  /** Waits briefly for a blocking request's answer. */
  static Optional<JsonRpcMessage> answer(Future<Optional<JsonRpcMessage>> running)
      throws Exception {
    return running.get(3, TimeUnit.SECONDS);
  }

  /** Returns the result of a successful response. */
  static JsonNode resultOf(Optional<JsonRpcMessage> response) {
    assertThat(response).isPresent();
    assertThat(response.get()).isInstanceOf(JsonRpcResponse.class);
    return ((JsonRpcResponse) response.get()).result();
  }

  /** Returns the first text content of a tool result. */
  static String textOf(JsonNode callToolResult) {
    return callToolResult.at("/content/0/text").stringValue();
  }

  /** Returns whether a tool result is an error. */
  static boolean isError(JsonNode callToolResult) {
    JsonNode isError = callToolResult.get("isError");
    return isError != null && isError.booleanValue();
  }

  @Override
  public void close() {
    executor.shutdownNow();
    server.close();
  }
}
