package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.engine.CancelledNotice;
import dev.keel.mcp.core.engine.OutboundRequests;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.server.InputRequests;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.server.TaskWork;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.internal.tasks.TaskRun;
import dev.keel.mcp.server.internal.tasks.TaskSignal;
import dev.keel.mcp.server.internal.registry.ToolEntry;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.RequestStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The context of one request. Everything it sends goes on the request's own stream, and nothing
 * is sent once the request completed or was cancelled. Where the version, capabilities and log
 * level come from depends on the era ({@link RequestView}); handlers never see the difference.
 */
public final class RealRequestContext implements RequestContext {

  private final ServerCore core;
  private final RequestView view;
  private final Principal principal;
  private final JsonRpcRequest request;
  private final MessageStream stream;
  private final Asking asking;
  /** The request's own stream, for polling and holding; null in a task's context. */
  private final RequestStream requestStream;
  /** Where the request's cancellations are registered (session id or connection), or null. */
  private final String scope;
  private final CancellationSource source;
  private final JsonNode progressToken;
  private final ReentrantLock progressLock = new ReentrantLock();
  private final AtomicInteger autoKeys = new AtomicInteger();
  private double lastProgress = Double.NEGATIVE_INFINITY;
  private final TaskRun task;
  private volatile boolean done;
  private volatile boolean timedOut;
  private volatile boolean taskOnDemand;
  private volatile boolean nonBlocking;
  /** The tool the request was routed to, or null (set once, before the handler runs). */
  private volatile ToolEntry routedTool;
  /** The first control signal the handler raised; see {@link ControlSignal}. */
  private volatile ControlSignal signalled;
  private boolean hasDeadline;
  private long deadlineNanos;

  /**
   * Creates a request's context.
   *
   * @param stream where what the handler sends goes
   * @param requestStream the request's own stream, or null for a handler running as a task
   * @param task the task the handler runs as, or null for an ordinary request
   * @param scope where the request's cancellations are registered, or null
   */
  RealRequestContext(ServerCore core, RequestView view, Principal principal,
      JsonRpcRequest request, MessageStream stream, RequestStream requestStream,
      CancellationSource source, TaskRun task, String scope, Asking asking) {
    this.task = task;
    this.asking = asking;
    this.requestStream = requestStream;
    this.scope = scope;
    this.core = core;
    this.view = view;
    this.principal = principal;
    this.request = request;
    this.stream = stream;
    this.source = source;
    this.progressToken = progressTokenOf(request.params());
  }

  private static JsonNode progressTokenOf(ObjectNode params) {
    JsonNode meta = params == null ? null : params.get("_meta");
    JsonNode token = meta == null ? null : meta.get("progressToken");
    if (token == null || !(token.isString() || token.isIntegralNumber())) {
      return null;
    }
    return token;
  }

  /** Cancels the request because it ran past its timeout. */
  void timeOut() {
    timedOut = true;
    source.cancel("timeout");
  }

  /**
   * Gives the call a deadline checked when it returns, instead of a timer: a non-blocking call
   * runs on a thread nothing may interrupt, and arming a timer for a call of microseconds costs
   * more than the call.
   */
  void deadline(long nanoTime) {
    // A flag, not a 0 sentinel: any long is a valid nanoTime.
    this.deadlineNanos = nanoTime;
    this.hasDeadline = true;
  }

  /** Returns true when the request was cancelled by its timeout (or ran past its deadline). */
  boolean timedOut() {
    if (!timedOut && hasDeadline && System.nanoTime() - deadlineNanos > 0) {
      timeOut();
    }
    return timedOut;
  }

  /** Marks the request complete: nothing more is sent for it. */
  void complete() {
    done = true;
  }

  /** Returns the tripping side of this request's token. */
  CancellationSource source() {
    return source;
  }

  /** Returns the legacy session, or null. */
  RealServerSession session() {
    return view.session();
  }

  RequestView view() {
    return view;
  }

  JsonRpcRequest request() {
    return request;
  }

  /** Returns the task this handler runs in, or null. */
  TaskRun task() {
    return task;
  }

  /** Marks the call as a non-blocking tool's: it must never wait for the client. */
  void nonBlocking(boolean value) {
    this.nonBlocking = value;
  }

  /**
   * Raises {@code signal} and remembers it. Once one was raised, every later raise repeats the
   * first: a handler that swallowed it and asks again is stopped again, with the same outcome.
   */
  RuntimeException raise(ControlSignal signal) {
    if (signalled == null) {
      signalled = signal;
    }
    throw signalled;
  }

  /** Records the tool the request was routed to. */
  void routedTool(ToolEntry tool) {
    this.routedTool = tool;
  }

  /** Returns the tool the request was routed to, or null. */
  ToolEntry routedTool() {
    return routedTool;
  }

  /** Returns the control signal the handler raised, swallowed or not, or null. */
  ControlSignal signalled() {
    return signalled;
  }

  /** Lets {@link #continueAsTask} turn this call into a task (a tool with tasks on demand). */
  void taskOnDemand(boolean value) {
    this.taskOnDemand = value;
  }

  @Override
  public String taskId() {
    return task == null ? null : task.taskId();
  }

  @Override
  public CallToolResult continueAsTask(TaskWork work) throws Exception {
    if (task == null && taskOnDemand) {
      throw raise(new TaskSignal(work));
    }
    return work.run(this);
  }

  ServerCore core() {
    return core;
  }

  MessageStream stream() {
    return stream;
  }

  @Override
  public CancellationToken cancellation() {
    return source;
  }

  @Override
  public Principal principal() {
    return principal;
  }

  @Override
  public String sessionId() {
    return view.session() == null ? null : view.session().id();
  }

  @Override
  public String protocolVersion() {
    return view.protocolVersion();
  }

  @Override
  public ClientCapabilities clientCapabilities() {
    return view.capabilities();
  }

  @Override
  public Implementation clientInfo() {
    return view.clientInfo();
  }

  @Override
  public RequestId requestId() {
    return request.id();
  }

  @Override
  public String method() {
    return request.method();
  }

  @Override
  public ObjectNode meta() {
    JsonNode meta = request.params() == null ? null : request.params().get("_meta");
    return meta instanceof ObjectNode o ? o : null;
  }

  private boolean send(JsonRpcMessage message) {
    if (done || source.isCancelled()) {
      return false;
    }
    return stream.send(message);
  }

  @Override
  public void progress(double progress, Double total, String message) {
    if (progressToken == null || Double.isNaN(progress)) {
      return;
    }
    progressLock.lock();
    try {
      if (done || progress <= lastProgress) {
        return;
      }
      lastProgress = progress;
      ObjectNode params = JsonNodeFactory.instance.objectNode();
      params.set("progressToken", progressToken);
      params.put("progress", progress);
      if (total != null) {
        params.put("total", total);
      }
      if (message != null) {
        params.put("message", message);
      }
      send(new JsonRpcNotification("notifications/progress", params));
    } finally {
      progressLock.unlock();
    }
  }

  @Override
  public void log(LoggingLevel level, String message) {
    log(level, core.info().name(), JsonNodeFactory.instance.stringNode(message));
  }

  @Override
  public void log(LoggingLevel level, String logger, JsonNode data) {
    LoggingLevel threshold = view.logThreshold();
    if (threshold == null || !level.atLeast(threshold)) {
      return;
    }
    ObjectNode params = JsonNodeFactory.instance.objectNode();
    params.put("level", level.wireName());
    if (logger != null) {
      params.put("logger", logger);
    }
    params.set("data", data);
    send(new JsonRpcNotification("notifications/message", params));
  }

  @Override
  public InputRequests inputs() {
    if (nonBlocking && asking.waits()) {
      // In a legacy session a question blocks until the client answers, on a thread that must
      // not wait; the stateless era answers input_required instead, which never waits.
      throw new IllegalStateException("tool " + request.params().path("name").asString()
          + " is non-blocking: in a legacy session it cannot ask the client (elicitation, "
          + "sampling, roots, approval), since that waits for the answer");
    }
    return new RealInputRequests(this);
  }

  @Override
  public ElicitResult elicit(ElicitRequest elicit) {
    return elicit(autoKey("elicitation"), elicit);
  }

  @Override
  public ElicitResult elicit(String key, ElicitRequest elicit) {
    return inputs().elicit(key, elicit).collect().elicitation(key);
  }

  @Override
  public CreateMessageResult sample(CreateMessageRequest sampling) {
    return sample(autoKey("sampling"), sampling);
  }

  @Override
  public CreateMessageResult sample(String key, CreateMessageRequest sampling) {
    return inputs().sample(key, sampling).collect().sampling(key);
  }

  @Override
  public List<Root> listRoots() {
    return listRoots(autoKey("roots"));
  }

  @Override
  public List<Root> listRoots(String key) {
    return inputs().listRoots(key).collect().roots(key);
  }

  /** Keys for unnamed questions: the same on every run of the handler, so retries line up. */
  String autoKey(String kind) {
    return kind + "-" + autoKeys.incrementAndGet();
  }

  @Override
  public boolean requireApproval(String message) {
    return ApprovalGate.ask(this, message, null) == ApprovalGate.Outcome.APPROVED;
  }

  @Override
  public void closeStreamForPolling() {
    if (!done && requestStream != null) {
      requestStream.closeForPolling();
    }
  }

  /** Returns how this request's handler asks the client. */
  Asking asking() {
    return asking;
  }

  /** Returns the request's own stream, or null in a task's context. */
  RequestStream requestStream() {
    return requestStream;
  }

  /** Returns where the request's cancellations are registered, or null. */
  String scope() {
    return scope;
  }

  /** Sends a request to the client on this request's stream (legacy era) and waits. */
  JsonNode ask(String method, ObjectNode params) {
    RealServerSession session = view.session();
    if (session == null) {
      throw new McpException(ErrorCodes.INVALID_REQUEST,
          "Cannot send " + method + " to a client without a session");
    }
    source.throwIfCancelled();
    OutboundRequests.Pending pending = session.pending().start();
    if (!send(new JsonRpcRequest(pending.id(), method, params))) {
      pending.abandon();
      if (source.isCancelled()) {
        throw new RequestCancelledException(source.reason());
      }
      throw new McpException(ErrorCodes.INTERNAL_ERROR, "Internal error");
    }
    if (task == null) {
      return await(pending, method);
    }
    // A legacy task waits on the client: input_required until the answer comes.
    task.askingClient();
    try {
      return await(pending, method);
    } finally {
      task.clientAnswered();
    }
  }

  /**
   * Waits on the client's answer. When this side stops waiting (a timeout, or its own request
   * was cancelled) it says so, so that the client stops asking its user; the session's stream
   * carries the notice when the request's own is gone.
   */
  private JsonNode await(OutboundRequests.Pending pending, String method) {
    try {
      return pending.await(method, core.clientRequestTimeout(), source);
    } catch (RequestTimeoutException | RequestCancelledException e) {
      JsonRpcMessage notice = new CancelledNotice(pending.id(),
          e instanceof RequestTimeoutException ? "timed out" : "the request was cancelled")
          .toNotification();
      if (done || source.isCancelled() || !stream.send(notice)) {
        view.session().sendToListener(notice);
      }
      throw e;
    }
  }
}
