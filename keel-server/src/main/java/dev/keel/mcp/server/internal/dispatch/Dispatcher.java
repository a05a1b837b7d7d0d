package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.internal.cancel.CancellationSource;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.InitializeRequest;
import dev.keel.mcp.core.schema.InitializeResult;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.server.internal.registry.ToolEntry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Routes messages to their handlers and owns each request's life: the cancellation token is
 * registered before the handler starts and bound to its thread, errors are mapped to JSON-RPC
 * errors that reveal nothing internal, and a cancelled request gets no response.
 */
public final class Dispatcher {

  private static final Logger LOG = LoggerFactory.getLogger(Dispatcher.class);

  /** The methods whose handlers are user code, and so run under a timeout. */
  private static final Set<String> USER_CODE = Set.of("tools/call", "resources/read",
      "prompts/get", "completion/complete");

  private final ServerCore core;
  private final Map<String, MethodHandler> methods = Map.ofEntries(
      Map.entry("ping", UtilityMethods::ping),
      Map.entry("logging/setLevel", UtilityMethods::setLevel),
      Map.entry("completion/complete", UtilityMethods::complete),
      Map.entry("tools/list", ToolMethods::list),
      Map.entry("tools/call", ToolMethods::call),
      Map.entry("resources/list", ResourceMethods::list),
      Map.entry("resources/templates/list", ResourceMethods::templates),
      Map.entry("resources/read", ResourceMethods::read),
      Map.entry("resources/subscribe", ResourceMethods::subscribe),
      Map.entry("resources/unsubscribe", ResourceMethods::unsubscribe),
      Map.entry("prompts/list", PromptMethods::list),
      Map.entry("prompts/get", PromptMethods::get));

  /** Creates a dispatcher over the server's shared state. */
  public Dispatcher(ServerCore core) {
    this.core = core;
  }

  /** Handles {@code initialize}, creating a session or refreshing {@code existing}. */
  public InitializeOutcome initialize(Principal principal, JsonRpcRequest request,
      RealServerSession existing) {
    InitializeRequest params;
    try {
      params = core.json().fromTree(request.params(), InitializeRequest.class);
    } catch (McpException e) {
      return new InitializeOutcome(new JsonRpcErrorResponse(request.id(), e.toError()), null);
    }
    if (existing != null && (existing.isChannel() || existing.isClosed()
        || !core.sessions().owners().bind(existing.id(), principal.fingerprint()))) {
      // A re-initialize refreshes only the owner's own session; nobody takes over another's.
      return new InitializeOutcome(error(request.id(),
          McpException.invalidRequest("Session not found")), null);
    }
    RealServerSession session = existing;
    if (session == null) {
      session = core.sessions().create(principal, core.defaultLogLevel()).orElse(null);
      if (session == null) {
        return new InitializeOutcome(new JsonRpcErrorResponse(request.id(),
            new JsonRpcError(ErrorCodes.SERVER_ERROR, "Too many sessions", null)), null);
      }
    }
    String version = ProtocolVersion.negotiate(params.protocolVersion());
    session.negotiated(version, params.capabilities(), params.clientInfo());
    session.touch();
    InitializeResult result = new InitializeResult(version, core.capabilities(), core.info(),
        core.instructions(), null);
    return new InitializeOutcome(new JsonRpcResponse(request.id(), core.json().toTree(result)),
        session);
  }

  /** Handles a message other than {@code initialize}; see {@code ServerEngine.handle}. */
  public Optional<JsonRpcMessage> handle(RealServerSession session, Principal principal,
      JsonRpcMessage message, MessageStream stream) {
    if (session != null) {
      session.touch();
    }
    if (message instanceof JsonRpcNotification n) {
      onNotification(session, n);
      return Optional.empty();
    }
    if (!(message instanceof JsonRpcRequest request)) {
      if (session == null || !session.pending().complete(message)) {
        LOG.debug("discarded a response nobody waits for: id {}", message.id());
      }
      return Optional.empty();
    }
    if (request.method().startsWith("notifications/")) {
      return Optional.of(error(request.id(),
          McpException.invalidRequest("Invalid Request: a notification must not carry an id")));
    }
    if (session != null && session.isChannel()) {
      return Optional.of(error(request.id(), McpException.invalidRequest(
          "Invalid Request: a notification channel takes no requests")));
    }
    if (request.method().equals("initialize")) {
      return Optional.of(error(request.id(),
          McpException.invalidRequest("Invalid Request: initialize opens a new session")));
    }
    MethodHandler handler = methods.get(request.method());
    if (handler == null) {
      return Optional.of(error(request.id(), McpException.methodNotFound(request.method())));
    }
    return run(session, principal, request, stream, handler);
  }

  private Optional<JsonRpcMessage> run(RealServerSession session, Principal principal,
      JsonRpcRequest request, MessageStream stream, MethodHandler handler) {
    Optional<ToolEntry> tool = toolOf(request);
    ToolOptions options = tool.map(ToolEntry::options).orElse(ToolOptions.defaults());
    CancellationSource source = new CancellationSource(options.interruptOnCancel());
    source.onCancel(core.counters()::cancelled);
    // Registered before the handler starts, so an immediate cancel is never lost.
    long entry = session == null ? 0
        : core.cancellations().register(session.id(), request.id(), source);
    RealRequestContext ctx =
        new RealRequestContext(core, session, principal, request, stream, source);
    stream.requestStarted(source::cancel);
    Duration timeout = options.timeout() != null ? options.timeout() : core.handlerTimeout();
    ScheduledFuture<?> timer = USER_CODE.contains(request.method())
        ? core.timer().schedule(ctx::timeOut, timeout.toMillis(), TimeUnit.MILLISECONDS) : null;
    core.counters().requestStarted();
    if (session != null) {
      session.requestStarted();
    }
    source.bindThread();
    try {
      ObjectNode params = request.params() == null
          ? JsonNodeFactory.instance.objectNode() : request.params();
      JsonNode result = handler.handle(ctx, params);
      return finished(ctx, request, timeout, () -> new JsonRpcResponse(request.id(), result));
    } catch (RequestCancelledException e) {
      return finished(ctx, request, timeout, null);
    } catch (McpException e) {
      return finished(ctx, request, timeout, () -> error(request.id(), e));
    } catch (Exception | Error e) {
      // Errors too: a handler that dies must still leave its request with an answer.
      if (!source.isCancelled()) {
        LOG.error("{} failed", request.method(), e);
      }
      return finished(ctx, request, timeout,
          () -> error(request.id(), McpException.internalError()));
    } finally {
      source.unbindThread();
      ctx.complete();
      if (timer != null) {
        timer.cancel(false);
      }
      if (session != null) {
        core.cancellations().deregister(session.id(), request.id(), entry);
        session.requestEnded();
      }
      core.counters().requestEnded();
    }
  }

  /**
   * The answer of a request whose handler returned or threw: a cancelled request gets none, a
   * timed-out one gets a timeout answer, any other gets {@code answer}.
   */
  private Optional<JsonRpcMessage> finished(RealRequestContext ctx, JsonRpcRequest request,
      Duration timeout, Supplier<JsonRpcMessage> answer) {
    if (ctx.timedOut()) {
      return Optional.of(timedOut(request, timeout));
    }
    if (ctx.cancellation().isCancelled() || answer == null) {
      return Optional.empty();
    }
    return Optional.of(answer.get());
  }

  private JsonRpcMessage timedOut(JsonRpcRequest request, Duration timeout) {
    String message = "timed out after " + timeout.toMillis() + " ms";
    if (request.method().equals("tools/call")) {
      String name = toolOf(request).map(t -> t.tool().name()).orElse("tool");
      return new JsonRpcResponse(request.id(), core.json().toTree(
          CallToolResult.error("Tool " + name + " " + message)));
    }
    return error(request.id(), new McpException(ErrorCodes.SERVER_ERROR,
        "Request " + message));
  }

  private Optional<ToolEntry> toolOf(JsonRpcRequest request) {
    if (!request.method().equals("tools/call") || request.params() == null) {
      return Optional.empty();
    }
    JsonNode name = request.params().get("name");
    return name != null && name.isString() ? core.registry().tool(name.stringValue())
        : Optional.empty();
  }

  private void onNotification(RealServerSession session, JsonRpcNotification n) {
    switch (n.method()) {
      case "notifications/initialized" -> {
        if (session != null) {
          session.markInitialized();
        }
      }
      case "notifications/cancelled" -> {
        RequestId id = requestIdOf(n.params());
        if (session != null && id != null) {
          JsonNode reason = n.params().get("reason");
          String why = reason != null && reason.isString() ? reason.stringValue() : "cancelled";
          core.cancellations().cancel(session.id(), id, "client: " + why);
        }
      }
      default -> LOG.debug("ignored notification {}", n.method());
    }
  }

  private static RequestId requestIdOf(ObjectNode params) {
    return params == null ? null : RequestId.fromJson(params.get("requestId"));
  }

  private static JsonRpcErrorResponse error(RequestId id, McpException e) {
    return new JsonRpcErrorResponse(id, e.toError());
  }
}
