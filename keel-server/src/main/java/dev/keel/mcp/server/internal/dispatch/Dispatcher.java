package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.core.protocol.McpMethod;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.engine.CancelledNotice;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.InitializeRequest;
import dev.keel.mcp.core.schema.InitializeResult;
import dev.keel.mcp.server.InboundRequest;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.metrics.Observing;
import dev.keel.mcp.server.internal.operations.InFlightTable;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.server.internal.mrtr.InputRequiredSignal;
import dev.keel.mcp.server.internal.registry.PromptEntry;
import dev.keel.mcp.server.internal.registry.ResourceEntry;
import dev.keel.mcp.server.internal.registry.ToolEntry;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
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
  /** The initialize result by negotiated version; see {@link #initializeResult}. */
  private final Map<String, ObjectNode> initializeResults = new ConcurrentHashMap<>();

  /**
   * The handler of {@code method}, or null. A switch, not a map of method references: each
   * reference becomes a class when it is first evaluated, and a map built all nineteen at every
   * start (1 MB of a start's allocation, docs/performance.md); here a method's handler is made
   * the first time that method is called.
   */
  private static MethodHandler handler(String method) {
    return switch (method) {
      case "ping" -> UtilityMethods::ping;
      case "logging/setLevel" -> UtilityMethods::setLevel;
      case "completion/complete" -> UtilityMethods::complete;
      case "tools/list" -> ToolMethods::list;
      case "tools/call" -> ToolMethods::call;
      case "resources/list" -> ResourceMethods::list;
      case "resources/templates/list" -> ResourceMethods::templates;
      case "resources/read" -> ResourceMethods::read;
      case "resources/subscribe" -> ResourceMethods::subscribe;
      case "resources/unsubscribe" -> ResourceMethods::unsubscribe;
      case "prompts/list" -> PromptMethods::list;
      case "prompts/get" -> PromptMethods::get;
      case "server/discover" -> UtilityMethods::discover;
      case "subscriptions/listen" -> ListenMethod::listen;
      case "tasks/get" -> TaskMethods::get;
      case "tasks/result" -> TaskMethods::result;
      case "tasks/list" -> TaskMethods::list;
      case "tasks/cancel" -> TaskMethods::cancel;
      case "tasks/update" -> TaskMethods::update;
      default -> null;
    };
  }

  private final Observing observing;

  /** Creates a dispatcher over the server's shared state, telling {@code observing}. */
  public Dispatcher(ServerCore core, Observing observing) {
    this.core = core;
    this.observing = observing;
  }

  /**
   * Starts observing a request on this thread; with no observer this builds nothing.
   *
   * @param view the request's view, or null when it was answered before one was made
   */
  Observing.Started observe(Edge edge, JsonRpcRequest request, RequestView view) {
    if (!observing.active()) {
      return Observing.NONE;
    }
    return observing.start(() -> inbound(edge, request, view));
  }

  /** Starts observing {@code initialize}, on the transport's thread. */
  public Observing.Started observeInitialize(Edge edge, JsonRpcRequest request) {
    return observe(edge, request, null);
  }

  private InboundRequest inbound(Edge edge, JsonRpcRequest request, RequestView view) {
    ObjectNode params = request.params();
    ObjectNode meta = params != null && params.get("_meta") instanceof ObjectNode m ? m
        : JsonNodeFactory.instance.objectNode();
    String version = view != null ? view.protocolVersion()
        : meta.path(dev.keel.mcp.core.MetaKeys.PROTOCOL_VERSION).asString(null);
    if (version == null && params != null && request.method().equals("initialize")) {
      version = params.path("protocolVersion").asString(null);
    }
    String session = view != null && view.session() != null ? view.session().id()
        : edge.session() == null ? null : edge.session().id();
    String target = targetOf(request);
    boolean registered = target != null && switch (request.method()) {
      case "tools/call" -> core.registry().tool(target).isPresent();
      case "prompts/get" -> core.registry().prompt(target).isPresent();
      default -> false;
    };
    return new InboundRequest(request.method(), target, request.id(), edge.era(),
        version, session, edge.principal().fingerprint(), meta, registered);
  }

  /** What a request names: a tool or prompt by name, a resource by URI. */
  private static String targetOf(JsonRpcRequest request) {
    JsonNode params = request.params();
    if (params == null) {
      return null;
    }
    String key = switch (request.method()) {
      case "tools/call", "prompts/get" -> "name";
      case "resources/read", "resources/subscribe", "resources/unsubscribe" -> "uri";
      default -> null;
    };
    JsonNode value = key == null ? null : params.get(key);
    return value != null && value.isString() ? value.stringValue() : null;
  }

  /**
   * The result of an {@code initialize} that negotiated {@code version}: it depends on nothing
   * else, so it is built once per version (from the records, the slower way to a tree) and each
   * answer gets a copy, which nobody downstream can change for the next session.
   */
  private ObjectNode initializeResult(String version) {
    return initializeResults.computeIfAbsent(version, v -> {
      ObjectNode made = (ObjectNode) core.json().toTree(
          new InitializeResult(v, core.capabilities(), core.info(), core.instructions(), null));
      // shared by every session of this version and never changed: its bytes are made once
      core.codec().freeze(made);
      return made;
    });
  }

  /** Handles {@code initialize}, creating a session or refreshing {@code existing}. */
  public InitializeOutcome initialize(Principal principal, JsonRpcRequest request,
      RealServerSession existing) {
    InitializeRequest params;
    try {
      // A client sends the same initialize every time it connects, and binding its
      // capabilities was the largest part of Keel's own cost of a session: bound once per
      // distinct value, as the stateless era's _meta is.
      params = request.params() == null
          ? core.json().fromTree(null, InitializeRequest.class)
          : ParsedMeta.bind(core.json(), request.params(), InitializeRequest.class);
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
    // The result is the one made for this version, shared by every session that negotiates it
    // (a copy per session was a tenth of Keel's own cost of a session): transports encode it,
    // and nothing in the engine changes a result it made (InitializeOutcome).
    return new InitializeOutcome(new JsonRpcResponse(request.id(), initializeResult(version)),
        session);
  }

  /**
   * Resolves a request that is not {@code initialize}, once: into its view and route, or into
   * an answer that needs no handler.
   */
  public RealServerCall call(RealServerSession session, Edge edge, JsonRpcRequest request,
      Executor handlers, RealServerCall.Admissions admissions) {
    if (session != null) {
      session.touch();
    }
    Optional<ToolEntry> tool = toolOf(request);
    Optional<JsonRpcMessage> refused = Optional.empty();
    RequestView view = null;
    MethodHandler handler = null;
    if (request.method().startsWith("notifications/")) {
      refused = Optional.of(error(request.id(),
          McpException.invalidRequest("Invalid Request: a notification must not carry an id")));
    } else if (edge.era() == Era.MODERN) {
      try {
        view = ModernRequests.view(core, request, edge.principal());
        handler = served(request.method(), Era.MODERN) ? handler(request.method()) : null;
        if (handler == null) {
          refused = Optional.of(error(request.id(),
              McpException.methodNotFound(request.method())));
        }
      } catch (McpException e) {
        refused = Optional.of(new JsonRpcErrorResponse(request.id(), WireCodec.MODERN.error(e)));
      }
    } else if (session != null && session.isChannel()) {
      refused = Optional.of(error(request.id(), McpException.invalidRequest(
          "Invalid Request: a notification channel takes no requests")));
    } else if (request.method().equals("initialize")) {
      refused = Optional.of(error(request.id(),
          McpException.invalidRequest("Invalid Request: initialize opens a new session")));
    } else {
      handler = served(request.method(), Era.LEGACY) ? handler(request.method()) : null;
      if (handler == null) {
        refused = Optional.of(error(request.id(),
            McpException.methodNotFound(request.method())));
      } else {
        view = new RequestView(WireCodec.LEGACY, session,
            session == null || session.protocolVersion() == null
                ? ProtocolVersion.LATEST_LEGACY : session.protocolVersion(),
            session == null ? ClientCapabilities.none() : session.clientCapabilities(),
            session == null ? null : session.clientInfo(),
            session == null ? core.defaultLogLevel() : session.logLevel(), null);
      }
    }
    Route route = refused.isPresent() ? null : new Route(McpMethod.of(request.method())
        .orElseThrow(), handler, tool.orElse(null), requiredScopes(request, tool));
    return new RealServerCall(this, handlers, admissions, edge, request,
        refused.isPresent() ? refused : null, view, route);
  }

  /**
   * Registers a resolved request's token under its scope: the legacy session, or the connection
   * a stateless request came on (stdio). Returns the entry, or 0 when there is no scope.
   */
  long register(RequestView view, Edge edge, JsonRpcRequest request,
      CancellationSource source) {
    String scope = scopeOf(view, edge);
    return scope == null ? 0 : core.cancellations().register(scope, request.id(), source);
  }

  /** Removes a registration of a call that will never run (it was refused). */
  void deregister(RequestView view, Edge edge, JsonRpcRequest request, long entry) {
    String scope = scopeOf(view, edge);
    if (scope != null) {
      core.cancellations().deregister(scope, request.id(), entry);
    }
  }

  private static String scopeOf(RequestView view, Edge edge) {
    return view.session() != null ? view.session().id() : edge.cancellationScope();
  }

  /** A call answered before any routing: the server is shutting down or the session ended. */
  public RealServerCall refused(Edge edge, JsonRpcRequest request, JsonRpcMessage answer) {
    return new RealServerCall(this, Runnable::run, null, edge, request, Optional.of(answer),
        null, null);
  }

  /** Takes a notification or a response from the client. */
  public void deliver(RealServerSession session, Edge edge, JsonRpcMessage message) {
    if (session != null) {
      session.touch();
    }
    if (message instanceof JsonRpcNotification n) {
      onNotification(session, n, edge.cancellationScope());
    } else if (session == null || !session.pending().complete(message)) {
      LOG.debug("discarded a response nobody waits for: id {}", message.id());
    }
  }

  /** Tells the operator's charts that a request that arrived at {@code startNanos} ended. */
  void pulse(long startNanos, Optional<JsonRpcMessage> answer) {
    Integer code = answer.orElse(null) instanceof JsonRpcErrorResponse e
        ? e.error().code() : null;
    core.pulse().ended(System.nanoTime() - startNanos, code);
  }

  /**
   * Runs a routed request's handler on the calling thread and returns its answer: none when the
   * client cancelled it, the cancelled error when the server's operator did (the client still
   * waits for an answer then).
   */
  Optional<JsonRpcMessage> run(RequestView view, Edge edge, JsonRpcRequest request,
      RequestStream stream, Route route, CancellationSource source, long entry) {
    String tool = route.tool() == null ? null : route.tool().tool().name();
    InFlightTable.Entry running = core.inFlight().add(request.method(), tool,
        edge.principal().id(), edge.era() == Era.MODERN,
        view.session() == null ? null : view.session().id(), scopeOf(view, edge), request.id(),
        source);
    try {
      Optional<JsonRpcMessage> answer = runHandler(view, edge, request, stream, route, source,
          entry);
      if (answer.isEmpty() && running.cancelledByOperator()) {
        return Optional.of(error(view, request.id(), new McpException(
            ErrorCodes.REQUEST_CANCELLED, "Request cancelled by the server's operator")));
      }
      return answer;
    } finally {
      core.inFlight().remove(running);
    }
  }

  private Optional<JsonRpcMessage> runHandler(RequestView view, Edge edge,
      JsonRpcRequest request, RequestStream stream, Route route, CancellationSource source,
      long entry) {
    RealServerSession session = view.session();
    Principal principal = edge.principal();
    MethodHandler handler = route.handler();
    ToolOptions options = route.options();
    boolean bind = !options.nonBlocking();
    source.onCancel(core.counters()::cancelled);
    String scope = scopeOf(view, edge);
    RealRequestContext ctx = new RealRequestContext(core, view, principal, request, stream,
        stream, source, null, scope, view.wire().asking());
    ctx.nonBlocking(options.nonBlocking());
    ctx.routedTool(route.tool());
    Duration timeout = options.timeout() != null ? options.timeout() : core.handlerTimeout();
    ScheduledFuture<?> timer = null;
    if (route.userCode()) {
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
      if (source.isCancelled()) {
        // cancelled before it started (a stream dropped on its way): it never runs
        return Optional.empty();
      }
      ObjectNode params = request.params() == null
          ? JsonNodeFactory.instance.objectNode() : request.params();
      JsonNode result = handler.handle(ctx, params);
      if (ctx.signalled() instanceof InputRequiredSignal signal) {
        // the handler swallowed it and returned: its question still stands
        return finished(view, ctx, route, request, timeout, () -> inputRequired(view, principal,
            request, signal));
      }
      if (result == MethodHandler.HELD) {
        return Optional.empty();
      }
      JsonNode shaped = view.wire().result(core, request.method(), result);
      return finished(view, ctx, route, request, timeout, () -> new JsonRpcResponse(request.id(), shaped));
    } catch (InputRequiredSignal signal) {
      return finished(view, ctx, route, request, timeout, () -> inputRequired(view, principal, request,
          signal));
    } catch (RequestCancelledException e) {
      return finished(view, ctx, route, request, timeout, null);
    } catch (McpException e) {
      return finished(view, ctx, route, request, timeout, () -> error(view, request.id(), e));
    } catch (dev.keel.mcp.server.cluster.ClusterUnavailableException e) {
      // a shared store out of reach is the service's state, not a bug: a clear answer, no trace
      LOG.warn("{}: {}", request.method(), e.getMessage());
      McpException unavailable = new McpException(ErrorCodes.SERVER_ERROR,
          "Service unavailable: the cluster's shared store cannot be reached");
      return finished(view, ctx, route, request, timeout,
          () -> error(view, request.id(), unavailable));
    } catch (Exception | Error e) {
      if (ctx.signalled() instanceof InputRequiredSignal signal) {
        // the handler swallowed its question and failed otherwise: the question wins
        return finished(view, ctx, route, request, timeout, () -> inputRequired(view, principal,
            request, signal));
      }
      if (e instanceof VirtualMachineError vm) {
        // the JVM is in trouble: no answer is worth hiding that (the finally still cleans up)
        throw vm;
      }
      // Other errors too: a handler that dies must still leave its request with an answer.
      // A cancelled request sends nothing, so its failure is expected and not logged.
      McpException internal = source.isCancelled() ? McpException.internalError()
          : HandlerFailures.internal(LOG, failed(request), e);
      return finished(view, ctx, route, request, timeout, () -> error(request.id(), internal));
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

  /**
   * Names a failed request for the log: its method, and the prompt, tool or resource it targets
   * (quoted safely, since the peer chose it).
   */
  private static String failed(JsonRpcRequest request) {
    ObjectNode params = request.params();
    JsonNode target = params == null ? null : params.has("name") ? params.get("name")
        : params.has("uri") ? params.get("uri") : params.path("ref").path("name").isString()
            ? params.path("ref").get("name") : params.path("ref").get("uri");
    return target != null && target.isString()
        ? request.method() + " " + dev.keel.mcp.core.Text.safe(target.asString())
        : request.method();
  }

  private static JsonRpcErrorResponse error(RequestView view, RequestId id, McpException e) {
    return new JsonRpcErrorResponse(id, view.wire().error(e));
  }

  /**
   * The answer of a request whose handler returned or threw: a cancelled request gets none, a
   * timed-out one gets a timeout answer, any other gets {@code answer}.
   */
  private Optional<JsonRpcMessage> finished(RequestView view, RealRequestContext ctx,
      Route route, JsonRpcRequest request, Duration timeout, Supplier<JsonRpcMessage> answer) {
    if (ctx.timedOut()) {
      return Optional.of(timedOut(view, route, request, timeout));
    }
    if (ctx.cancellation().isCancelled() || answer == null) {
      return Optional.empty();
    }
    return Optional.of(answer.get());
  }

  private JsonRpcMessage timedOut(RequestView view, Route route, JsonRpcRequest request,
      Duration timeout) {
    String message = "timed out after " + timeout.toMillis() + " ms";
    if (request.method().equals("tools/call")) {
      String name = route.tool() == null ? "tool" : route.tool().tool().name();
      JsonNode result = core.json().toTree(CallToolResult.error("Tool " + name + " " + message));
      return new JsonRpcResponse(request.id(), view.wire().result(core, request.method(), result));
    }
    return error(request.id(), new McpException(ErrorCodes.SERVER_ERROR,
        "Request " + message));
  }

  /** Returns true when {@code era} has the method and this server serves it there. */
  private boolean served(String method, Era era) {
    return McpMethod.of(method).map(m -> m.in(era) && m.sender() != McpMethod.Sender.SERVER
        && m != McpMethod.INITIALIZE).orElse(false);
  }

  /**
   * The scopes the feature a request names needs: the tool's, the resource's (or the first
   * matching template's, as a read would pick it) or the prompt's. Found once, here, so the
   * transport can answer 403 before anything runs.
   */
  private java.util.Set<String> requiredScopes(JsonRpcRequest request,
      Optional<ToolEntry> tool) {
    if (tool.isPresent()) {
      return tool.get().options().requiredScopes();
    }
    JsonNode params = request.params();
    if (params == null) {
      return java.util.Set.of();
    }
    switch (request.method()) {
      case "resources/read", "resources/subscribe" -> {
        JsonNode uri = params.get("uri");
        if (uri == null || !uri.isString()
            || uri.stringValue().length() > ResourceMethods.MAX_URI) {
          return java.util.Set.of();
        }
        String u = uri.stringValue();
        return core.registry().resource(u).map(ResourceEntry::requiredScopes)
            .orElseGet(() -> core.registry().firstTemplate(t -> t.uriTemplate().match(u)
                .map(vars -> t.requiredScopes())).orElse(java.util.Set.of()));
      }
      case "prompts/get" -> {
        JsonNode name = params.get("name");
        return name != null && name.isString() ? core.registry().prompt(name.stringValue())
            .map(PromptEntry::requiredScopes).orElse(java.util.Set.of()) : java.util.Set.of();
      }
      default -> {
        return java.util.Set.of();
      }
    }
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
      String scope) {
    switch (n.method()) {
      case "notifications/initialized" -> {
        if (session != null) {
          session.markInitialized();
        }
      }
      case CancelledNotice.METHOD -> {
        CancelledNotice notice = CancelledNotice.read(n.params());
        if (notice == null) {
          return;
        }
        RequestId id = notice.requestId();
        String why = notice.reason();
        if (session != null) {
          core.cancellations().cancel(session.id(), id, "client: " + why);
        }
        // Stateless requests and subscriptions on this connection (stdio).
        if (scope != null) {
          core.cancellations().cancel(scope, id, "client: " + why);
          core.subscriptions().cancel(scope, id);
        }
      }
      default -> LOG.debug("ignored notification {}", n.method());
    }
  }

  private static JsonRpcErrorResponse error(RequestId id, McpException e) {
    return new JsonRpcErrorResponse(id, e.toError());
  }
}
