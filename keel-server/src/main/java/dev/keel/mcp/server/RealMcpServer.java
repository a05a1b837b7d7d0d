package dev.keel.mcp.server;

import dev.keel.mcp.core.jsonschema.JsonSchemaCompiler;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ServerCapabilities;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.engine.InboundRequests;
import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.SessionRecord;
import dev.keel.mcp.server.internal.cluster.ClusterLink;
import dev.keel.mcp.server.internal.dispatch.Dispatcher;
import dev.keel.mcp.server.internal.dispatch.RealServerCall;
import dev.keel.mcp.server.internal.dispatch.ServerCore;
import dev.keel.mcp.server.internal.registry.FeatureKind;
import dev.keel.mcp.server.internal.registry.FeatureRegistry;
import dev.keel.mcp.server.internal.registry.PromptEntry;
import dev.keel.mcp.server.internal.registry.ResourceEntry;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.internal.metrics.ServerCounters;
import dev.keel.mcp.server.internal.operations.InFlightTable;
import dev.keel.mcp.server.internal.operations.Pulse;
import dev.keel.mcp.server.internal.operations.RealServerOperations;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.internal.session.SessionOwnerRegistry;
import dev.keel.mcp.server.internal.session.SessionTable;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.HandlerThreads;
import dev.keel.mcp.server.transport.ServerCall;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import dev.keel.mcp.server.internal.mrtr.RequestStateSealer;
import dev.keel.mcp.server.internal.subscriptions.SubscriptionRegistry;
import dev.keel.mcp.server.internal.tasks.TaskEngine;
import dev.keel.mcp.server.internal.tasks.TaskJson;
import dev.keel.mcp.server.spi.StoredTask;
import dev.keel.mcp.server.spi.TaskStore;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/** The server: registry, sessions and dispatcher behind the {@link McpServer} interface. */
final class RealMcpServer implements McpServer, ServerEngine {

  private final McpJson json;
  private final ServerCore core;
  private final Dispatcher dispatcher;
  private final ScheduledExecutorService timer;
  private final Semaphore admissions;
  private final RealServerCall.Admissions admission;
  /** The threads handlers run on: the engine's, not its transports'. */
  private final ExecutorService handlers = HandlerThreads.newExecutor("keel-handler");
  private final SubscriptionRegistry subscriptions;
  private final LoggingLevel defaultLogLevel;
  private final ClusterLink link;
  private final int maxSessions;
  private final int maxSessionsPerPrincipal;
  private final ServerOperations operations;
  private volatile boolean listening;

  RealMcpServer(Builder b) {
    this.json = McpJson.create(b.limits);
    Implementation info = new Implementation(b.name, b.title, b.version, null, null, null);
    FeatureRegistry registry = new FeatureRegistry(this::listChanged);
    this.subscriptions = new SubscriptionRegistry(b.maxSubscriptionsPerPrincipal);
    InboundRequests cancellations = new InboundRequests();
    this.maxSessions = b.maxSessions;
    this.maxSessionsPerPrincipal = b.maxSessionsPerPrincipal;
    this.link = new ClusterLink(b.cluster, json, new FromOtherNodes());
    // The counters read the table's size and the table updates the counters.
    SessionTable[] table = new SessionTable[1];
    TaskEngine[] tasks = new TaskEngine[1];
    ServerCounters counters = new ServerCounters(() -> table[0] == null ? 0 : table[0].size(),
        () -> table[0] == null ? 0 : table[0].owners().size(),
        () -> tasks[0] == null ? 0 : tasks[0].running());
    SessionTable sessions = new SessionTable(
        new SessionTable.Limits(b.maxSessions, b.maxSessionsPerPrincipal, b.sessionIdleTimeout),
        new SessionOwnerRegistry(Math.max(SessionOwnerRegistry.DEFAULT_MAX_ENTRIES,
            b.maxSessions), b.notificationChannels),
        counters, s -> {
          link.closed(s);
          cancellations.cancelAllFor(s.id(), "session ended");
          if (tasks[0] != null) {
            tasks[0].sessionEnded(s.id());
          }
        });
    table[0] = sessions;
    JsonSchemaCompiler schemas = new JsonSchemaCompiler();
    FeatureRegistrations.register(b, registry, schemas, json);
    java.util.concurrent.ScheduledThreadPoolExecutor timerPool =
        new java.util.concurrent.ScheduledThreadPoolExecutor(1, r -> {
          Thread t = new Thread(r, "keel-server-timer");
          t.setDaemon(true);
          return t;
        });
    // Every request arms a timeout that is almost always cancelled: left in the queue until its
    // deadline (minutes away), cancelled timers piled up by the hundred thousand under load.
    timerPool.setRemoveOnCancelPolicy(true);
    this.timer = timerPool;
    tasks[0] = new TaskEngine(b.taskStore != null ? b.taskStore
        : TaskStore.inMemory(b.maxTasks, b.maxTasksPerPrincipal),
        new TaskEngine.Limits(b.defaultTaskTtl, b.maxTaskTtl, b.taskPollInterval,
            b.maxActiveTasksPerPrincipal), Clock.systemUTC(), timer, this::taskChanged,
        new TaskEngine.Relay() {
          @Override
          public void cancel(String taskId, String reason) {
            link.cancelTask(taskId, reason);
          }

          @Override
          public void answer(String taskId, ObjectNode answers) {
            link.answerTask(taskId, answers);
          }
        });
    this.core = new ServerCore(json, new JsonRpcCodec(json), registry, sessions, cancellations,
        schemas, info, capabilities(registry), b.instructions, b.pageSize,
        b.clientRequestTimeout, b.defaultLogLevel, b.handlerTimeout, counters, timer,
        new RequestStateSealer(requestStateKeys(b), b.requestStateTtl, Clock.systemUTC(), json),
        b.maxInputRounds, Map.copyOf(b.cacheHints), subscriptions, tasks[0],
        new InFlightTable(), new Pulse());
    this.operations = new RealServerOperations(core);
    this.dispatcher = new Dispatcher(core,
        new dev.keel.mcp.server.internal.metrics.Observing(b.observers));
    this.admissions = new Semaphore(b.maxInFlightRequests);
    this.admission = new RealServerCall.Admissions() {
      @Override
      public boolean tryAcquire() {
        if (admissions.tryAcquire()) {
          return true;
        }
        core.counters().requestRefused();
        return false;
      }

      @Override
      public void release() {
        admissions.release();
      }
    };
    this.defaultLogLevel = b.defaultLogLevel;
    long sweep = Math.max(50, Math.min(b.sessionIdleTimeout.toMillis() / 4, 30_000));
    timer.scheduleWithFixedDelay(() -> sessions.evictIdle(System.nanoTime()), sweep, sweep,
        TimeUnit.MILLISECONDS);
    // the in-flight line of the operator's chart: one reading a second
    timer.scheduleAtFixedRate(() -> core.pulse().inFlight(core.counters().inFlightRequests()),
        1, 1, TimeUnit.SECONDS);
    if (link.shared()) {
      // listings lapse after the idle timeout unless the node that holds them renews them
      long renew = Math.max(100, Math.min(b.sessionIdleTimeout.toMillis() / 3, 10_000));
      timer.scheduleWithFixedDelay(() -> link.renew(sessions.all()), renew, renew,
          TimeUnit.MILLISECONDS);
    }
    this.listening = true;
  }

  private static ServerCapabilities capabilities(FeatureRegistry registry) {
    ObjectNode listChanged = JsonNodeFactory.instance.objectNode().put("listChanged", true);
    ObjectNode resources = JsonNodeFactory.instance.objectNode()
        .put("subscribe", true).put("listChanged", true);
    ObjectNode empty = JsonNodeFactory.instance.objectNode();
    // Legacy tasks (2025-11-25); the stateless era gets the tasks extension in server/discover.
    ObjectNode tasks = JsonNodeFactory.instance.objectNode();
    tasks.putObject("list");
    tasks.putObject("cancel");
    tasks.putObject("requests").putObject("tools").putObject("call");
    return new ServerCapabilities(listChanged.deepCopy(), resources, listChanged.deepCopy(),
        empty.deepCopy(), registry.hasCompletions() ? empty.deepCopy() : null, tasks, null,
        null);
  }

  /** Status notifications: legacy on the session's listening stream, modern on listen streams. */
  private void taskChanged(StoredTask task) {
    if (!listening) {
      return;
    }
    if (task.modern()) {
      ObjectNode detailed = TaskJson.detailed(task);
      subscriptions.taskChanged(task.taskId(), detailed);
      link.taskChanged(task.taskId(), detailed);
    } else if (task.sessionId() != null && core != null) {
      core.sessions().get(task.sessionId()).ifPresent(s -> s.sendToListener(
          new JsonRpcNotification("notifications/tasks/status", TaskJson.legacy(task))));
    }
  }

  private void listChanged(FeatureKind kind) {
    if (!listening) {
      return;
    }
    subscriptions.listChanged(kind);
    JsonRpcNotification notification = new JsonRpcNotification(kind.notification(), null);
    for (RealServerSession session : core.sessions().all()) {
      if (session.initialized()) {
        session.sendToListener(notification);
      }
    }
  }

  @Override
  public Implementation info() {
    return core.info();
  }

  @Override
  public ServerCapabilities capabilities() {
    return core.capabilities();
  }

  @Override
  public void addTool(Tool tool, ToolHandler handler) {
    addTool(tool, ToolOptions.defaults(), handler);
  }

  @Override
  public void addTool(Tool tool, ToolOptions options, ToolHandler handler) {
    core.registry().putTool(FeatureRegistrations.toolEntry(core.schemas(), tool, options,
        handler));
  }

  @Override
  public ServerMetrics metrics() {
    return core.counters();
  }

  @Override
  public ServerOperations operations() {
    return operations;
  }

  @Override
  public boolean removeTool(String name) {
    return core.registry().removeTool(name);
  }

  @Override
  public void addResource(Resource resource, ResourceHandler handler) {
    core.registry().putResource(new ResourceEntry(resource, handler));
  }

  @Override
  public boolean removeResource(String uri) {
    return core.registry().removeResource(uri);
  }

  @Override
  public void addPrompt(Prompt prompt, PromptHandler handler) {
    core.registry().putPrompt(new PromptEntry(prompt, handler));
  }

  @Override
  public boolean removePrompt(String name) {
    return core.registry().removePrompt(name);
  }

  @Override
  public int resourceUpdated(String uri) {
    link.resourceUpdated(uri);
    return resourceUpdatedHere(uri);
  }

  private int resourceUpdatedHere(String uri) {
    ObjectNode params = JsonNodeFactory.instance.objectNode().put("uri", uri);
    JsonRpcNotification notification =
        new JsonRpcNotification("notifications/resources/updated", params);
    int told = subscriptions.resourceUpdated(uri);
    for (RealServerSession session : core.sessions().all()) {
      if (session.subscribed(uri) && session.sendToListener(notification)) {
        told++;
      }
    }
    return told;
  }

  @Override
  public boolean notify(String sessionId, String method, ObjectNode params) {
    if (method == null || method.isBlank()) {
      throw new IllegalArgumentException("method must not be blank");
    }
    Optional<RealServerSession> here = core.sessions().get(sessionId);
    if (here.isPresent()) {
      return here.get().sendToListener(new JsonRpcNotification(method, params));
    }
    return link.notifyElsewhere(sessionId, method, params);
  }

  /** What other nodes ask of this one, over the cluster's bus. */
  private final class FromOtherNodes implements ClusterLink.Local {
    @Override
    public void resourceUpdated(String uri) {
      if (listening) {
        resourceUpdatedHere(uri);
      }
    }

    @Override
    public void notify(String sessionId, String method, ObjectNode params) {
      if (listening) {
        core.sessions().get(sessionId)
            .ifPresent(s -> s.sendToListener(new JsonRpcNotification(method, params)));
      }
    }

    @Override
    public void cancelTask(String taskId, String reason) {
      core.tasks().cancelHere(taskId, reason);
    }

    @Override
    public void answerTask(String taskId, ObjectNode answers) {
      core.tasks().answerHere(taskId, answers);
    }

    @Override
    public void taskChanged(String taskId, ObjectNode detailed) {
      if (listening) {
        subscriptions.taskChanged(taskId, detailed);
      }
    }
  }

  /** Timers armed and not yet fired or cancelled (for tests of the timer's hygiene). */
  int pendingTimers() {
    return ((java.util.concurrent.ScheduledThreadPoolExecutor) timer).getQueue().size();
  }

  @Override
  public ServerEngine engine() {
    return this;
  }

  @Override
  public JsonRpcCodec codec() {
    return core.codec();
  }

  @Override
  public InitializeOutcome initialize(Principal principal, JsonRpcRequest request,
      ServerSession existing) {
    dev.keel.mcp.server.internal.metrics.Observing.Started observed =
        dispatcher.observeInitialize(Edge.of(existing, principal,
            dev.keel.mcp.core.protocol.Era.LEGACY), request);
    long started = System.nanoTime();
    InitializeOutcome outcome = initializeNow(principal, request, existing);
    observed.end(Optional.ofNullable(outcome.response()), false);
    core.pulse().ended(System.nanoTime() - started,
        outcome.response() instanceof JsonRpcErrorResponse e ? e.error().code() : null);
    return outcome;
  }

  private InitializeOutcome initializeNow(Principal principal, JsonRpcRequest request,
      ServerSession existing) {
    if (!listening) {
      return new InitializeOutcome(shuttingDown(request), null);
    }
    RealServerSession session = existing == null ? null : own(existing).orElse(null);
    if (existing != null && session == null) {
      // a session this engine does not hold under that owner: answered as unknown
      return new InitializeOutcome(new JsonRpcErrorResponse(request.id(), new JsonRpcError(
          ErrorCodes.INVALID_REQUEST, "Session not found", null)), null);
    }
    InitializeOutcome outcome = dispatcher.initialize(principal, request, session);
    if (existing != null || !(outcome.session() instanceof RealServerSession created)) {
      return outcome;
    }
    boolean claimed;
    try {
      claimed = link.claim(created, maxSessions, maxSessionsPerPrincipal);
    } catch (RuntimeException e) {
      // the directory is out of reach: a session no other node can find must not be served
      created.close();
      throw e;
    }
    if (!claimed) {
      created.close();
      core.counters().sessionRefused();
      return new InitializeOutcome(new JsonRpcErrorResponse(request.id(), new JsonRpcError(
          ErrorCodes.SERVER_ERROR, "Too many sessions", null)), null);
    }
    return outcome;
  }

  @Override
  public Cluster cluster() {
    return link.cluster();
  }

  @Override
  public Optional<ServerSession> adopt(SessionRecord record, Principal principal) {
    if (!listening || !record.owner().equals(principal.fingerprint())) {
      return Optional.empty();
    }
    Optional<RealServerSession> held = core.sessions().owned(record.id(), principal);
    if (held.isPresent()) {
      return Optional.of(held.get());
    }
    dev.keel.mcp.core.schema.ClientCapabilities caps = record.clientCapabilities() == null
        ? null : json.mapper().treeToValue(record.clientCapabilities(),
            dev.keel.mcp.core.schema.ClientCapabilities.class);
    Implementation info = record.clientInfo() == null ? null
        : json.mapper().treeToValue(record.clientInfo(), Implementation.class);
    Optional<RealServerSession> restored = core.sessions().restore(record.id(), principal,
        defaultLogLevel, record.protocolVersion(), caps, info);
    restored.ifPresent(link::adopted);
    // a request racing this one may have restored it first
    return restored.or(() -> core.sessions().owned(record.id(), principal)).map(s -> s);
  }

  /**
   * Returns this engine's own session behind one a transport hands back, by id and owner: a
   * transport may wrap the sessions it was given, so a wrapper is looked up, never cast. The
   * very session {@link #session} gave out, still the one this table holds under its id, is
   * taken as it is: its owner was checked when it was handed out and never changes, and the
   * owner table's lock was taken twice per request for the same answer.
   */
  private Optional<RealServerSession> own(ServerSession session) {
    if (session instanceof RealServerSession real
        && core.sessions().get(real.id()).orElse(null) == real) {
      return Optional.of(real);
    }
    return core.sessions().owned(session.id(), session.owner());
  }

  @Override
  public Optional<ServerSession> session(String id, Principal principal) {
    return core.sessions().owned(id, principal).map(s -> s);
  }

  @Override
  public boolean endIfQuiet(ServerSession session) {
    Optional<RealServerSession> own = own(session);
    if (own.isEmpty()) {
      // ended meanwhile: the transport's ordinary path answers for it
      return false;
    }
    RealServerSession s = own.get();
    if (!s.quiet() || core.tasks().runsFor(s.id())) {
      return false;
    }
    s.close();
    return true;
  }

  @Override
  public Optional<ServerSession> attachChannel(String id, Principal principal) {
    if (!listening) {
      return Optional.empty();
    }
    return core.sessions().attachChannel(id, principal, defaultLogLevel).map(s -> s);
  }

  @Override
  public ServerCall call(Edge edge, JsonRpcRequest request) {
    RealServerSession session = edge.session() == null ? null : own(edge.session()).orElse(null);
    if (!listening || (edge.session() != null && (session == null || session.isClosed()))) {
      // A closed server, or a session that ended while this request was on its way, takes no
      // more work; the request still gets an answer.
      JsonRpcErrorResponse refusal = listening ? sessionEnded(request) : shuttingDown(request);
      return dispatcher.refused(edge, request, refusal);
    }
    return dispatcher.call(session, edge, request, handlers, admission);
  }

  @Override
  public void deliver(Edge edge, JsonRpcMessage message) {
    if (!listening) {
      return;
    }
    RealServerSession session = edge.session() == null ? null : own(edge.session()).orElse(null);
    if (edge.session() != null && (session == null || session.isClosed())) {
      return;
    }
    dispatcher.deliver(session, edge, message);
  }

  private static JsonRpcErrorResponse sessionEnded(JsonRpcRequest request) {
    return new JsonRpcErrorResponse(request.id(), new JsonRpcError(ErrorCodes.SERVER_ERROR,
        "Session ended: the request was not run", null));
  }

  private static JsonRpcErrorResponse shuttingDown(JsonRpcRequest request) {
    return new JsonRpcErrorResponse(request.id(), new JsonRpcError(ErrorCodes.SERVER_ERROR,
        "Server is not accepting requests", null));
  }

  @Override
  public void close() {
    listening = false;
    link.leave();
    subscriptions.shutdown();
    core.tasks().close();
    for (RealServerSession session : core.sessions().all()) {
      session.close();
    }
    timer.shutdownNow();
    handlers.shutdownNow();
  }

  /**
   * The builder's key ring; else a fixed one of its key (or, by default, a random key of this
   * process, so states neither survive a restart nor open on another node) and retired keys.
   */
  private static RequestStateKeys requestStateKeys(McpServer.Builder b) {
    if (b.requestStateKeys != null) {
      return b.requestStateKeys;
    }
    byte[] current = b.requestStateKey;
    if (current == null) {
      current = new byte[32];
      new java.security.SecureRandom().nextBytes(current);
    }
    return RequestStateKeys.of(current, b.previousRequestStateKeys);
  }
}
