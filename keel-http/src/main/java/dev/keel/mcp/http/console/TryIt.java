package dev.keel.mcp.http.console;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.server.transport.ServerCall;
import dev.keel.mcp.server.transport.ServerEngine;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The try-it panel: lists the read-only tools and calls one as the operator. Both are
 * stateless-era requests handed to the engine exactly as the HTTP transport hands a client's
 * ({@code _meta}, admission, scopes, argument validation, timeout, observers), never a direct
 * call of the handler. Only a tool whose annotations say {@code readOnlyHint: true} is
 * offered or run.
 */
final class TryIt {

  /** A refusal the console answers itself, with its HTTP status. */
  record Refusal(int status, String message) {}

  private static final int MAX_PAGES = 20;
  private final ServerEngine engine;
  private final AtomicLong ids = new AtomicLong();

  TryIt(ServerEngine engine) {
    this.engine = engine;
  }

  /**
   * The operator as a principal: its own fingerprint (it owns nothing a client made), and
   * scope-based with no scopes, so a tool that needs a scope stays closed to the console.
   */
  static Principal principal(String operator) {
    return new Principal(operator, "console:" + operator, java.util.Map.of(), Set.of());
  }

  /** Returns the read-only tools, as {@code tools/list} shows them to the operator. */
  CompletionStage<ArrayNode> readOnlyTools(String operator) {
    return page(operator, null, tools.jackson.databind.node.JsonNodeFactory.instance.arrayNode(), 0);
  }

  private CompletionStage<ArrayNode> page(String operator, String cursor, ArrayNode into,
      int pages) {
    ObjectNode params = McpJson.object();
    if (cursor != null) {
      params.put("cursor", cursor);
    }
    return dispatch(operator, "tools/list", params).thenCompose(answer -> {
      JsonNode result = answerOf(answer);
      for (JsonNode tool : result.path("tools")) {
        if (tool.path("annotations").path("readOnlyHint").asBoolean(false)) {
          into.add(tool);
        }
      }
      String next = result.path("nextCursor").asString(null);
      if (next == null || pages + 1 >= MAX_PAGES) {
        return CompletableFuture.completedFuture(into);
      }
      return page(operator, next, into, pages + 1);
    });
  }

  /**
   * Calls {@code tool} as the operator when it is read-only; completes with the JSON-RPC
   * answer, or with a {@link Refused} failure.
   */
  CompletionStage<JsonRpcMessage> call(String operator, String tool, ObjectNode arguments) {
    return readOnlyTools(operator).thenCompose(tools -> {
      boolean offered = false;
      for (JsonNode t : tools) {
        offered |= tool.equals(t.path("name").asString(""));
      }
      if (!offered) {
        throw new Refused(new Refusal(403, "tool " + dev.keel.mcp.core.Text.safe(tool)
            + " is not a read-only tool of this server (annotations.readOnlyHint must be"
            + " true): the console runs only read-only tools"));
      }
      ObjectNode params = McpJson.object();
      params.put("name", tool);
      params.set("arguments", arguments == null ? McpJson.object() : arguments);
      return dispatch(operator, "tools/call", params);
    });
  }

  /** Hands one stateless request to the engine, as the HTTP transport would. */
  private CompletionStage<JsonRpcMessage> dispatch(String operator, String method,
      ObjectNode params) {
    ObjectNode meta = params.putObject("_meta");
    meta.put(MetaKeys.PROTOCOL_VERSION, ProtocolVersion.MODERN.get(0));
    meta.putObject(MetaKeys.CLIENT_CAPABILITIES);
    JsonRpcRequest request = new JsonRpcRequest(
        RequestId.of("console-" + ids.incrementAndGet()), method, params);
    ServerCall call = engine.call(Edge.of(null, principal(operator), Era.MODERN), request);
    Set<String> missing = call.missingScopes();
    if (!missing.isEmpty()) {
      return CompletableFuture.failedFuture(new Refused(new Refusal(403,
          "the operator's principal lacks the scopes " + String.join(" ", missing))));
    }
    CompletableFuture<JsonRpcMessage> answer = new CompletableFuture<>();
    RequestStream stream = new RequestStream() {
      @Override
      public boolean send(JsonRpcMessage message) {
        return true; // progress and logs of a try are not shown
      }

      @Override
      public void finish(Optional<JsonRpcMessage> message) {
        answer.complete(message.orElseGet(() -> new JsonRpcErrorResponse(request.id(),
            new JsonRpcError(ErrorCodes.REQUEST_CANCELLED, "Request cancelled", null))));
      }

      @Override
      public void closeForPolling() {
        // nothing to reconnect: the answer comes on finish
      }

      @Override
      public boolean hold(Runnable onGone) {
        return false;
      }

      @Override
      public void release() {
        // never held
      }
    };
    if (!call.start(stream, false)) {
      return CompletableFuture.failedFuture(new Refused(new Refusal(503,
          "the server is at its in-flight limit: try again")));
    }
    return answer;
  }

  private static JsonNode answerOf(JsonRpcMessage answer) {
    if (answer instanceof JsonRpcResponse r) {
      return r.result();
    }
    JsonRpcError error = ((JsonRpcErrorResponse) answer).error();
    throw new Refused(new Refusal(502, "tools/list failed: " + error.code() + " "
        + dev.keel.mcp.core.Text.safe(error.message())));
  }

  /** A try the console refuses or could not run. */
  static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final transient Refusal refusal;

    Refused(Refusal refusal) {
      super(refusal.message(), null, false, false);
      this.refusal = refusal;
    }

    Refusal refusal() {
      return refusal;
    }
  }
}
