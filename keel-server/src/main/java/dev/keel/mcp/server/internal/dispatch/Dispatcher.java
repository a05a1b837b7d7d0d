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
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.core.protocol.McpMethod;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.InitializeRequest;
import dev.keel.mcp.core.schema.InitializeResult;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.server.internal.mrtr.InputRequiredSignal;
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

  /** Methods of the legacy era. */
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
      Map.entry("prompts/get", PromptMethods::get),
      Map.entry("server/discover", UtilityMethods::discover),
      Map.entry("subscriptions/listen", ListenMethod::listen),
      Map.entry("tasks/get", TaskMethods::get),
      Map.entry("tasks/result", TaskMethods::result),
      Map.entry("tasks/list", TaskMethods::list),
      Map.entry("tasks/cancel", TaskMethods::cancel),
      Map.entry("tasks/update", TaskMethods::update));

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
      JsonRpcMessage message, Era era, MessageStream stream) {
    if (session != null) {
      session.touch();
    }
    if (message instanceof JsonRpcNotification n) {
      onNotification(session, n, stream);
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
    if (era == Era.MODERN) {
      return handleModern(principal, request, stream);
    }
    if (session != null && session.isChannel()) {
      return Optional.of(error(request.id(), McpException.invalidRequest(
          "Invalid Request: a notification channel takes no requests")));
    }
    if (request.method().equals("initialize")) {
      return Optional.of(error(request.id(),
          McpException.invalidRequest("Invalid Request: initialize opens a new session")));
    }
    MethodHandler handler = served(request.method(), Era.LEGACY)
        ? methods.get(request.method()) : null;
    if (handler == null) {
      return Optional.of(error(request.id(), McpException.methodNotFound(request.method())));
    }
    RequestView view = new RequestView(false, session,
        session == null || session.protocolVersion() == null
            ? ProtocolVersion.LATEST_LEGACY : session.protocolVersion(),
        session == null ? ClientCapabilities.none() : session.clientCapabilities(),
        session == null ? null : session.clientInfo(),
        session == null ? core.defaultLogLevel() : session.logLevel(), null);
    return run(view, principal, request, stream, handler);
  }

  /** A stateless request: served without any session, whatever the transport carried. */
  private Optional<JsonRpcMessage> handleModern(Principal principal, JsonRpcRequest request,
      MessageStream stream) {
    RequestView view;
    try {
      view = ModernRequests.view(core, request, principal);
    } catch (McpException e) {
      return Optional.of(new JsonRpcErrorResponse(request.id(), ModernRequests.error(e)));
    }
    MethodHandler handler = served(request.method(), Era.MODERN)
        ? methods.get(request.method()) : null;
    if (handler == null) {
      return Optional.of(error(request.id(), McpException.methodNotFound(request.method())));
    }
    return run(view, principal, request, stream, handler);
  }

  private Optional<JsonRpcMessage> run(RequestView view, Principal principal,
      JsonRpcRequest request, MessageStream stream, MethodHandler handler) {
    RealServerSession session = view.session();
    Optional<ToolEntry> tool = toolOf(request);
    ToolOptions options = tool.map(ToolEntry::options).orElse(ToolOptions.defaults());
    // A non-blocking tool runs on the transport's own thread (a container thread): that thread
    // is never bound, so no cancel can interrupt it.
    boolean bind = !options.nonBlocking();
    CancellationSource source = new CancellationSource(options.interruptOnCancel() && bind);
    source.onCancel(core.counters()::cancelled);
    // Registered before the handler starts, so an immediate cancel is never lost. The scope is
    // the legacy session, or the connection a stateless request came on (stdio).
    String scope = session != null ? session.id() : stream.cancellationScope();
    long entry = scope == null ? 0
        : core.cancellations().register(scope, request.id(), source);
    RealRequestContext ctx =
        new RealRequestContext(core, view, principal, request, stream, source);
    ctx.nonBlocking(options.nonBlocking());
    stream.requestStarted(source::cancel);
    Duration timeout = options.timeout() != null ? options.timeout() : core.handlerTimeout();
    ScheduledFuture<?> timer = null;
    if (McpMethod.of(request.method()).map(McpMethod::userCode).orElse(false)) {
      if (options.nonBlocking()) {
        ctx.deadline(System.nanoTime() + timeout.toNanos());
      } else {
        timer = core.timer().schedule(ctx::timeOut, timeout.toMillis(), TimeUnit.MILLISECONDS);
      }
    }
    core.counters().requestStarted();
    if (session != null) {
      session.requestStarted();
    }
    if (bind) {
      source.bindThread();
    }
    try {
      ObjectNode params = request.params() == null
          ? JsonNodeFactory.instance.objectNode() : request.params();
      JsonNode result = handler.handle(ctx, params);
      if (ctx.signalled() instanceof InputRequiredSignal signal) {
        // the handler swallowed it and returned: its question still stands
        return finished(view, ctx, request, timeout, () -> inputRequired(view, principal,
            request, signal));
      }
      if (result == MethodHandler.HELD) {
        return Optional.empty();
      }
      JsonNode shaped = view.modern()
          ? ModernRequests.complete(core, request.method(), result) : result;
      return finished(view, ctx, request, timeout, () -> new JsonRpcResponse(request.id(), shaped));
    } catch (InputRequiredSignal signal) {
      return finished(view, ctx, request, timeout, () -> inputRequired(view, principal, request,
          signal));
    } catch (RequestCancelledException e) {
      return finished(view, ctx, request, timeout, null);
    } catch (McpException e) {
      return finished(view, ctx, request, timeout, () -> error(view, request.id(), e));
    } catch (Exception | Error e) {
      if (ctx.signalled() instanceof InputRequiredSignal signal) {
        // the handler swallowed its question and failed otherwise: the question wins
        return finished(view, ctx, request, timeout, () -> inputRequired(view, principal,
            request, signal));
      }
      if (e instanceof VirtualMachineError vm) {
        // the JVM is in trouble: no answer is worth hiding that (the finally still cleans up)
        throw vm;
      }
      // Other errors too: a handler that dies must still leave its request with an answer.
      if (!source.isCancelled()) {
        LOG.error("{} failed", request.method(), e);
      }
      return finished(view, ctx, request, timeout,
          () -> error(request.id(), McpException.internalError()));
    } finally {
      if (bind) {
        source.unbindThread();
      }
      ctx.complete();
      if (timer != null) {
        timer.cancel(false);
      }
      if (scope != null) {
        core.cancellations().deregister(scope, request.id(), entry);
      }
      if (session != null) {
        session.requestEnded();
      }
      core.counters().requestEnded();
    }
  }

  private JsonRpcMessage inputRequired(RequestView view, Principal principal,
      JsonRpcRequest request, InputRequiredSignal signal) {
    try {
      return new JsonRpcResponse(request.id(), ModernRequests.inputRequired(core, request,
          principal, view.round(), signal.inputRequests()));
    } catch (McpException e) {
      return error(view, request.id(), e);
    }
  }

  private static JsonRpcErrorResponse error(RequestView view, RequestId id, McpException e) {
    return new JsonRpcErrorResponse(id, view.modern() ? ModernRequests.error(e) : e.toError());
  }

  /**
   * The answer of a request whose handler returned or threw: a cancelled request gets none, a
   * timed-out one gets a timeout answer, any other gets {@code answer}.
   */
  private Optional<JsonRpcMessage> finished(RequestView view, RealRequestContext ctx,
      JsonRpcRequest request, Duration timeout, Supplier<JsonRpcMessage> answer) {
    if (ctx.timedOut()) {
      return Optional.of(timedOut(view, request, timeout));
    }
    if (ctx.cancellation().isCancelled() || answer == null) {
      return Optional.empty();
    }
    return Optional.of(answer.get());
  }

  private JsonRpcMessage timedOut(RequestView view, JsonRpcRequest request, Duration timeout) {
    String message = "timed out after " + timeout.toMillis() + " ms";
    if (request.method().equals("tools/call")) {
      String name = toolOf(request).map(t -> t.tool().name()).orElse("tool");
      JsonNode result = core.json().toTree(CallToolResult.error("Tool " + name + " " + message));
      if (view.modern()) {
        result = ModernRequests.complete(core, request.method(), result);
      }
      return new JsonRpcResponse(request.id(), result);
    }
    return error(request.id(), new McpException(ErrorCodes.SERVER_ERROR,
        "Request " + message));
  }

  /** Returns true when {@code era} has the method and this server serves it there. */
  private boolean served(String method, Era era) {
    return McpMethod.of(method).map(m -> m.in(era) && m.sender() != McpMethod.Sender.SERVER
        && m != McpMethod.INITIALIZE).orElse(false);
  }

  /** Returns true when the request calls a tool registered as non-blocking. */
  public boolean runsInline(JsonRpcRequest request) {
    return toolOf(request).map(entry -> entry.options().nonBlocking()).orElse(false);
  }

  private Optional<ToolEntry> toolOf(JsonRpcRequest request) {
    if (!request.method().equals("tools/call") || request.params() == null) {
      return Optional.empty();
    }
    JsonNode name = request.params().get("name");
    return name != null && name.isString() ? core.registry().tool(name.stringValue())
        : Optional.empty();
  }

  private void onNotification(RealServerSession session, JsonRpcNotification n,
      MessageStream stream) {
    switch (n.method()) {
      case "notifications/initialized" -> {
        if (session != null) {
          session.markInitialized();
        }
      }
      case "notifications/cancelled" -> {
        RequestId id = requestIdOf(n.params());
        if (id == null) {
          return;
        }
        JsonNode reason = n.params().get("reason");
        String why = reason != null && reason.isString() ? reason.stringValue() : "cancelled";
        if (session != null) {
          core.cancellations().cancel(session.id(), id, "client: " + why);
        }
        // Stateless requests and subscriptions on this connection (stdio).
        String scope = stream.cancellationScope();
        if (scope != null) {
          core.cancellations().cancel(scope, id, "client: " + why);
          core.subscriptions().cancel(stream, id);
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
