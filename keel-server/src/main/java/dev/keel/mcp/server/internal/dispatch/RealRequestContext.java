package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.internal.cancel.CancellationSource;
import dev.keel.mcp.core.internal.engine.PendingRequests;
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
import dev.keel.mcp.core.schema.ListRootsResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.server.McpErrors;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.internal.session.RealServerSession;
import dev.keel.mcp.server.transport.MessageStream;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The context of one request. Everything it sends goes on the request's own stream, and nothing
 * is sent once the request completed or was cancelled.
 */
public final class RealRequestContext implements RequestContext {

  private final ServerCore core;
  private final RealServerSession session;
  private final Principal principal;
  private final JsonRpcRequest request;
  private final MessageStream stream;
  private final CancellationSource source;
  private final JsonNode progressToken;
  private final ReentrantLock progressLock = new ReentrantLock();
  private double lastProgress = Double.NEGATIVE_INFINITY;
  private volatile boolean done;
  private volatile boolean timedOut;

  RealRequestContext(ServerCore core, RealServerSession session, Principal principal,
      JsonRpcRequest request, MessageStream stream, CancellationSource source) {
    this.core = core;
    this.session = session;
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

  /** Returns true when the request was cancelled by its timeout. */
  boolean timedOut() {
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

  /** Returns the session, or null. */
  RealServerSession session() {
    return session;
  }

  ServerCore core() {
    return core;
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
    return session == null ? null : session.id();
  }

  @Override
  public String protocolVersion() {
    return session == null || session.protocolVersion() == null
        ? ProtocolVersion.LATEST_LEGACY : session.protocolVersion();
  }

  @Override
  public ClientCapabilities clientCapabilities() {
    return session == null ? ClientCapabilities.none() : session.clientCapabilities();
  }

  @Override
  public Implementation clientInfo() {
    return session == null ? null : session.clientInfo();
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
    LoggingLevel threshold = session == null ? core.defaultLogLevel() : session.logLevel();
    if (!level.atLeast(threshold)) {
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
  public ElicitResult elicit(ElicitRequest elicit) {
    ClientCapabilities caps = clientCapabilities();
    boolean supported = elicit.isUrlMode() ? caps.supportsElicitationUrl()
        : caps.supportsElicitationForm();
    if (!supported) {
      throw McpErrors.missingCapability(elicit.isUrlMode() ? "elicitation.url" : "elicitation");
    }
    JsonNode result = ask("elicitation/create", core.json().toObject(elicit));
    return peerResult("elicitation/create", result, ElicitResult.class);
  }

  @Override
  public CreateMessageResult sample(CreateMessageRequest sampling) {
    ClientCapabilities caps = clientCapabilities();
    if (!caps.supportsSampling()) {
      throw McpErrors.missingCapability("sampling");
    }
    if (sampling.tools() != null && !caps.supportsSamplingTools()) {
      throw McpErrors.missingCapability("sampling.tools");
    }
    JsonNode result = ask("sampling/createMessage", core.json().toObject(sampling));
    return peerResult("sampling/createMessage", result, CreateMessageResult.class);
  }

  @Override
  public List<Root> listRoots() {
    if (!clientCapabilities().supportsRoots()) {
      throw McpErrors.missingCapability("roots");
    }
    JsonNode result = ask("roots/list", null);
    return peerResult("roots/list", result, ListRootsResult.class).roots();
  }

  @Override
  public boolean requireApproval(String message) {
    return ApprovalGate.ask(this, message, null) == ApprovalGate.Outcome.APPROVED;
  }

  @Override
  public void closeStreamForPolling() {
    if (!done) {
      stream.closeForPolling();
    }
  }

  private JsonNode ask(String method, ObjectNode params) {
    if (session == null) {
      throw new McpException(ErrorCodes.INVALID_REQUEST,
          "Cannot send " + method + " to a client without a session");
    }
    source.throwIfCancelled();
    PendingRequests.Pending pending = session.pending().start();
    if (!send(new JsonRpcRequest(pending.id(), method, params))) {
      pending.abandon();
      if (source.isCancelled()) {
        throw new RequestCancelledException(source.reason());
      }
      throw new McpException(ErrorCodes.INTERNAL_ERROR, "Internal error");
    }
    return pending.await(method, core.clientRequestTimeout(), source);
  }

  private <T> T peerResult(String method, JsonNode result, Class<T> type) {
    try {
      return core.json().fromTree(result, type);
    } catch (McpException e) {
      throw new McpException(ErrorCodes.INVALID_PARAMS,
          "The client answered " + method + " with an invalid result");
    }
  }
}
