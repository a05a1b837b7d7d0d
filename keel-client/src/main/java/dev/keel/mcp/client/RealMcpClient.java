package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.ClientThreads;
import dev.keel.mcp.client.internal.HostHandlers;
import dev.keel.mcp.client.internal.SessionPins;
import dev.keel.mcp.client.internal.ToolCatalog;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.protocol.McpMethod;
import dev.keel.mcp.core.MetaKeys;
import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.internal.engine.PendingRequests;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Completion;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.ServerCapabilities;
import dev.keel.mcp.core.schema.Tool;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client: one connection, either era.
 *
 * <p>Legacy era: requests are written into the session current when they are built, pinned to
 * its epoch, so a request of an ended session never reaches its replacement. A 404 ends the
 * session; the thread that sees it re-initializes (one at a time) and re-sends the request only
 * when its method is idempotent. Stateless era: every request carries {@code _meta} and the
 * request headers; an {@code input_required} result is answered by the host's handlers and the
 * request re-sent with a new id, at most {@code maxInputRounds} times.
 */
final class RealMcpClient implements McpClient {

  private static final Logger LOG = LoggerFactory.getLogger(RealMcpClient.class);

  /**
   * Returns true when re-sending {@code method} cannot do anything twice (the protocol's method
   * table says): only these survive a session expiry.
   */
  static boolean idempotent(String method) {
    return McpMethod.of(method).map(McpMethod::idempotent).orElse(false)
        && !method.equals("server/discover");
  }

  private final ClientTransport transport;
  private final McpJson json = McpJson.standard();
  private final McpClient.Builder config;
  private final PendingRequests pending;
  private final HostHandlers host;
  private final ToolCatalog catalog = new ToolCatalog();
  private final TaskCalls tasks = new TaskCalls(this);
  private final ExecutorService handlerThreads = ClientThreads.newExecutor("keel-client-handler");
  private final Semaphore handlerSlots;
  private final ReentrantLock recoveryLock = new ReentrantLock();
  private final AtomicLong progressTokens = new AtomicLong(1);
  private final Map<String, ProgressListener> progress = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<ObjectNode>> acknowledgements =
      new ConcurrentHashMap<>();
  private final Set<LegacySubscription> legacySubscriptions = ConcurrentHashMap.newKeySet();

  private volatile Era era;
  private volatile String version;
  private volatile Implementation serverInfo;
  private volatile ServerCapabilities serverCapabilities;
  private volatile String instructions;
  private volatile LoggingLevel logLevel;
  private volatile boolean sessionful;
  private volatile boolean closed;

  private RealMcpClient(McpClient.Builder b) {
    this.transport = b.transport;
    this.config = b;
    this.pending = new PendingRequests(b.maxPending);
    this.host = new HostHandlers(json, b.elicitation, b.sampling, b.roots);
    this.handlerSlots = new Semaphore(b.maxConcurrentHandlers);
  }

  static McpClient connect(McpClient.Builder b) {
    RealMcpClient client = new RealMcpClient(b);
    try {
      client.start();
      return client;
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  private void start() {
    transport.start(new Inbound());
    Era verdict = config.era;
    if (verdict == Era.AUTO) {
      verdict = probe();
    } else if (verdict == Era.MODERN) {
      try {
        discover(ProtocolVersion.V2026_07_28, true);
      } catch (LegacyOnly e) {
        throw new InvalidServerResponseException("the server does not speak the stateless "
            + "era (2026-07-28); connect with Era.LEGACY or Era.AUTO");
      }
    }
    if (verdict == Era.LEGACY) {
      initialize();
    }
    this.era = verdict;
  }

  // ---------------------------------------------------------------- era and handshake

  /**
   * Probes with {@code server/discover}. Only a definite rejection makes the server legacy:
   * no answer, 401/403 and 5xx say nothing about the era and fail the connection.
   */
  private Era probe() {
    try {
      discover(ProtocolVersion.V2026_07_28, true);
      return Era.MODERN;
    } catch (McpException e) {
      if (e.code() == ErrorCodes.HEADER_MISMATCH
          || e.code() == ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY) {
        throw new TransportException("the server speaks the stateless era but refused the "
            + "discovery request: " + Text.safe(e.getMessage()));
      }
      return Era.LEGACY;
    } catch (LegacyOnly e) {
      return Era.LEGACY;
    } catch (TransportException e) {
      int status = e.httpStatus();
      if (status == 400 || status == 404 || status == 405) {
        return Era.LEGACY;
      }
      throw new TransportException(status == 0 ? e.getMessage()
          : "cannot tell the server's protocol era: " + e.getMessage(), status, e);
    } catch (RequestTimeoutException e) {
      throw new TransportException("the server did not answer server/discover within "
          + config.connectTimeout.toMillis() + " ms; its era is unknown (set Era.LEGACY or "
          + "Era.MODERN to skip the probe)", 0, e);
    }
  }

  /** Signals that discovery showed a server speaking only legacy versions. */
  private static final class LegacyOnly extends RuntimeException {
    private static final long serialVersionUID = 1L;

    LegacyOnly() {
      super(null, null, false, false);
    }
  }

  private void discover(String tryVersion, boolean retryOnVersion) {
    this.version = tryVersion;
    JsonNode result;
    try {
      result = exchangeModern("server/discover", McpJson.object(), config.connectTimeout, null,
          null);
    } catch (McpException e) {
      if (e.code() != ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION || !retryOnVersion) {
        throw e;
      }
      String other = mutualModernVersion(e.data());
      if (other == null) {
        throw new LegacyOnly();
      }
      discover(other, false);
      return;
    }
    List<String> supported = strings(result.get("supportedVersions"));
    if (supported.isEmpty()) {
      // Not a discovery result: a legacy server answering an unknown method with anything.
      throw new LegacyOnly();
    }
    if (!supported.contains(version)) {
      String other = supported.stream().filter(ProtocolVersion::isModern).findFirst()
          .orElse(null);
      if (other == null) {
        throw new LegacyOnly();
      }
      this.version = other;
    }
    // 2026-07-28 puts it in _meta; some servers put it beside the capabilities. It is a SHOULD.
    JsonNode info = result.path("_meta").get(MetaKeys.SERVER_INFO);
    if (info == null || !info.isObject()) {
      info = result.get("serverInfo");
    }
    this.serverInfo = info != null && info.isObject()
        ? parse(info, Implementation.class, "server/discover") : null;
    JsonNode capabilities = result.get("capabilities");
    this.serverCapabilities = capabilities == null || capabilities.isNull()
        ? new ServerCapabilities(null, null, null, null, null, null, null, null)
        : parse(capabilities, ServerCapabilities.class, "server/discover");
    JsonNode text = result.get("instructions");
    this.instructions = text != null && text.isString() ? text.stringValue() : null;
  }

  private static String mutualModernVersion(JsonNode data) {
    JsonNode supported = data == null ? null : data.get("supported");
    for (String v : strings(supported)) {
      if (ProtocolVersion.isModern(v)) {
        return v;
      }
    }
    return null;
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null && array.isArray()) {
      for (JsonNode v : array) {
        if (v.isString()) {
          out.add(v.stringValue());
        }
      }
    }
    return out;
  }

  /** The legacy handshake; runs unpinned, since it establishes a session rather than using one. */
  private void initialize() {
    transport.unpinnedSession(() -> {
      ObjectNode params = McpJson.object();
      params.put("protocolVersion", ProtocolVersion.LATEST_LEGACY);
      params.set("capabilities", json.toObject(host.capabilities()));
      params.set("clientInfo", json.toObject(config.clientInfo));
      JsonNode result = exchangeLegacy("initialize", params, config.connectTimeout, null,
          transport.sessionEpoch(), false);
      JsonNode negotiated = result.get("protocolVersion");
      if (negotiated == null || !negotiated.isString()
          || !ProtocolVersion.isLegacy(negotiated.stringValue())) {
        throw new InvalidServerResponseException("the server chose a protocol version this "
            + "client does not speak: " + Text.safe(String.valueOf(negotiated)));
      }
      this.version = negotiated.stringValue();
      this.serverInfo = parse(result.get("serverInfo"), Implementation.class, "initialize");
      this.serverCapabilities = parse(result.get("capabilities"), ServerCapabilities.class,
          "initialize");
      JsonNode text = result.get("instructions");
      this.instructions = text != null && text.isString() ? text.stringValue() : null;
      if (transport instanceof StreamableHttpTransport http) {
        http.legacyVersion(version);
        sessionful = transport.sessionId() != null;
      } else if (transport instanceof StdioTransport stdio) {
        stdio.sessionStarted();
      }
      transport.send(new JsonRpcNotification("notifications/initialized", null),
          ClientTransport.SendOptions.legacy(version));
      if (transport instanceof StreamableHttpTransport http) {
        http.openListeningStream();
      }
      return null;
    });
  }

  /**
   * Starts a replacement session after the one a request was built in ended. One thread at a
   * time; a thread that finds the session already replaced does nothing.
   */
  private void recover() {
    recoveryLock.lock();
    try {
      if (closed || transport.sessionId() != null) {
        return;
      }
      LOG.info("the server session expired; starting a new one");
      initialize();
      LoggingLevel level = logLevel;
      if (level != null) {
        exchangeLegacy("logging/setLevel", McpJson.object().put("level", level.wireName()),
            config.requestTimeout, null, transport.sessionEpoch(), true);
      }
      for (LegacySubscription s : legacySubscriptions) {
        try {
          exchangeLegacy("resources/subscribe", McpJson.object().put("uri", s.uri),
              config.requestTimeout, null, transport.sessionEpoch(), true);
        } catch (RuntimeException e) {
          LOG.warn("could not renew the subscription to {}: {}", Text.safe(s.uri),
              Text.safe(e.getMessage()));
        }
      }
    } finally {
      recoveryLock.unlock();
    }
  }

  // ---------------------------------------------------------------- requests

  /** Sends a request in the current era and returns its result. */
  private JsonNode call(String method, ObjectNode params, CallOptions options) {
    if (closed) {
      throw new ConnectionClosedException("the client is closed");
    }
    CallOptions o = options == null ? CallOptions.defaults() : options;
    Duration timeout = o.timeout() != null ? o.timeout() : config.requestTimeout;
    if (era == Era.MODERN) {
      return callModern(method, params, timeout, o.progress());
    }
    return callLegacy(method, params, timeout, o.progress());
  }

  private JsonNode callLegacy(String method, ObjectNode params, Duration timeout,
      ProgressListener listener) {
    boolean resent = false;
    while (true) {
      if (sessionful && transport.sessionId() == null) {
        recover();
      }
      long built = transport.sessionEpoch();
      try {
        return exchangeLegacy(method, params, timeout, listener, built, true);
      } catch (SessionExpiredException e) {
        recover();
        if (resent || !idempotent(method)) {
          throw e;
        }
        resent = true;
        LOG.debug("re-sending {} into the new session", method);
      }
    }
  }

  /**
   * One legacy exchange. The write is pinned to the epoch the request was built in, or to the
   * caller's own pin, so it can never land in a later session.
   */
  private JsonNode exchangeLegacy(String method, ObjectNode params, Duration timeout,
      ProgressListener listener, long built, boolean cancellable) {
    PendingRequests.Pending waiting = pending.start();
    ObjectNode sent = params == null ? McpJson.object() : params.deepCopy();
    String token = listener == null ? null : watchProgress(sent, listener);
    JsonRpcRequest request = new JsonRpcRequest(waiting.id(), method, sent);
    Long callerPin = SessionPins.pinOf(transport);
    long pin = callerPin != null ? callerPin : built;
    ClientTransport.Exchange exchange = null;
    try {
      exchange = transport.pinnedToSession(pin, () -> transport.send(request,
          ClientTransport.SendOptions.legacy(version)));
      return waiting.await(method, timeout, CancellationToken.none());
    } catch (RequestTimeoutException | RequestCancelledException e) {
      if (cancellable) {
        cancelAtServer(request, null, pin, e instanceof RequestTimeoutException
            ? "timed out" : "cancelled by the client");
      }
      if (exchange != null) {
        // The answer is no longer wanted: stop reading its stream (after the cancellation,
        // so a server that resumes streams does not take the close for the only signal).
        exchange.abort();
      }
      throw e;
    } catch (RuntimeException e) {
      waiting.abandon();
      throw e;
    } finally {
      if (token != null) {
        progress.remove(token);
      }
    }
  }

  private JsonNode callModern(String method, ObjectNode params, Duration timeout,
      ProgressListener listener) {
    return callModern(method, params, timeout, listener, false);
  }

  /** A stateless request through its input rounds; the raw result of the last one. */
  JsonNode callModern(String method, ObjectNode params, Duration timeout,
      ProgressListener listener, boolean withTasks) {
    long deadline = System.nanoTime() + timeout.toNanos();
    ObjectNode base = params == null ? McpJson.object() : params;
    ObjectNode responses = null;
    String state = null;
    boolean versionRetried = false;
    for (int round = 0; ; round++) {
      ObjectNode sent = base.deepCopy();
      if (responses != null) {
        sent.set("inputResponses", responses);
      }
      if (state != null) {
        sent.put("requestState", state);
      }
      Duration left = Duration.ofNanos(Math.max(1_000_000L, deadline - System.nanoTime()));
      JsonNode result;
      try {
        result = exchangeModern(method, sent, left, listener, toolSchema(method, base),
            withTasks);
      } catch (McpException e) {
        if (e.code() == ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION && !versionRetried
            && idempotent(method)) {
          String other = mutualModernVersion(e.data());
          if (other != null) {
            versionRetried = true;
            this.version = other;
            round--;
            continue;
          }
        }
        if (e.code() == ErrorCodes.HEADER_MISMATCH && method.equals("tools/call")) {
          // The tool's header annotations changed: refresh them for the caller's next try. The
          // call itself is never re-sent by the client.
          try {
            listTools();
          } catch (RuntimeException refresh) {
            LOG.debug("refreshing the tools after -32020 failed: {}",
                Text.safe(refresh.getMessage()));
          }
        }
        throw e;
      }
      String type = result.path("resultType").isString()
          ? result.get("resultType").stringValue() : "complete";
      if (!type.equals("input_required")) {
        return result;
      }
      if (round + 1 >= config.maxInputRounds) {
        throw new InvalidServerResponseException(method + " still needed input after "
            + config.maxInputRounds + " rounds; gave up");
      }
      responses = answerInputs(result.get("inputRequests"));
      JsonNode nextState = result.get("requestState");
      state = nextState != null && nextState.isString() ? nextState.stringValue() : null;
    }
  }

  private ObjectNode toolSchema(String method, ObjectNode params) {
    if (!method.equals("tools/call")) {
      return null;
    }
    JsonNode name = params.get("name");
    return name != null && name.isString()
        ? catalog.find(name.stringValue()).map(e -> e.tool().inputSchema()).orElse(null)
        : null;
  }

  /** Answers one input request through the host's handlers. */
  JsonNode answerInput(String method, ObjectNode params) {
    return host.answer(method, params);
  }

  /**
   * A legacy request that belongs to the session of {@code epoch} (a task's): pinned to it, and
   * never re-sent into another; an expired session is replaced for later calls.
   */
  JsonNode legacyInSession(String method, ObjectNode params, Duration timeout, long epoch) {
    if (closed) {
      throw new ConnectionClosedException("the client is closed");
    }
    try {
      return exchangeLegacy(method, params, timeout, null, epoch, true);
    } catch (SessionExpiredException e) {
      recover();
      throw e;
    }
  }

  /** Makes sure a legacy session exists and returns its epoch. */
  long currentSession() {
    if (era == Era.LEGACY && sessionful && transport.sessionId() == null) {
      recover();
    }
    return transport.sessionEpoch();
  }

  /** The task machinery, for tests in this package. */
  TaskCalls tasks() {
    return tasks;
  }

  Duration defaultTimeout() {
    return config.requestTimeout;
  }

  <T> T parseResult(JsonNode node, Class<T> type, String what) {
    return parse(node, type, what);
  }

  boolean isClosed() {
    return closed;
  }

  private ObjectNode answerInputs(JsonNode requests) {
    if (!(requests instanceof ObjectNode asked) || asked.isEmpty()) {
      throw new InvalidServerResponseException("an input_required result named no input "
          + "requests");
    }
    ObjectNode answers = McpJson.object();
    for (Map.Entry<String, JsonNode> entry : asked.properties()) {
      JsonNode method = entry.getValue().get("method");
      if (method == null || !method.isString()) {
        throw new InvalidServerResponseException("input request "
            + Text.safe(entry.getKey()) + " names no method");
      }
      JsonNode params = entry.getValue().get("params");
      answers.set(entry.getKey(), host.answer(method.stringValue(),
          params instanceof ObjectNode p ? p : null));
    }
    return answers;
  }

  /** One stateless exchange: {@code _meta} and headers, cancellation by closing the stream. */
  private JsonNode exchangeModern(String method, ObjectNode params, Duration timeout,
      ProgressListener listener, ObjectNode schema) {
    return exchangeModern(method, params, timeout, listener, schema, false);
  }

  private JsonNode exchangeModern(String method, ObjectNode params, Duration timeout,
      ProgressListener listener, ObjectNode schema, boolean withTasks) {
    PendingRequests.Pending waiting = pending.start();
    ObjectNode sent = params.deepCopy();
    ObjectNode meta = sent.get("_meta") instanceof ObjectNode m ? m : sent.putObject("_meta");
    meta.put(MetaKeys.PROTOCOL_VERSION, version);
    meta.set(MetaKeys.CLIENT_INFO, json.toObject(config.clientInfo));
    ObjectNode capabilities = json.toObject(host.capabilities());
    if (withTasks) {
      // Declared only where the client takes a task: a server may answer any task-capable
      // call with a task once the client says it can follow one.
      ObjectNode extensions = capabilities.get("extensions") instanceof ObjectNode e ? e
          : capabilities.putObject("extensions");
      extensions.putObject(TaskCalls.EXTENSION);
    }
    meta.set(MetaKeys.CLIENT_CAPABILITIES, capabilities);
    LoggingLevel level = logLevel;
    if (level != null) {
      meta.put(MetaKeys.LOG_LEVEL, level.wireName());
    }
    String token = listener == null ? null : watchProgress(sent, listener);
    JsonRpcRequest request = new JsonRpcRequest(waiting.id(), method, sent);
    ClientTransport.Exchange exchange = null;
    try {
      exchange = transport.send(request,
          new ClientTransport.SendOptions(true, version, schema));
      return waiting.await(method, timeout, CancellationToken.none());
    } catch (RequestTimeoutException | RequestCancelledException e) {
      if (!method.equals("server/discover")) {
        cancelAtServer(request, exchange, null, e instanceof RequestTimeoutException
            ? "timed out" : "cancelled by the client");
      } else if (exchange != null) {
        exchange.abort();
      }
      throw e;
    } catch (RuntimeException e) {
      waiting.abandon();
      throw e;
    } finally {
      if (token != null) {
        progress.remove(token);
      }
    }
  }

  /**
   * Tells the server a request is no longer wanted: over stateless HTTP by closing its stream,
   * otherwise with {@code notifications/cancelled} into the request's own session. Never for
   * {@code initialize}; the request is never re-sent.
   */
  private void cancelAtServer(JsonRpcRequest request, ClientTransport.Exchange exchange,
      Long pin, String reason) {
    if (request.method().equals("initialize")) {
      return;
    }
    boolean interrupted = Thread.interrupted();
    try {
      if (era == Era.MODERN && transport instanceof StreamableHttpTransport) {
        if (exchange != null) {
          exchange.abort();
        }
        return;
      }
      ObjectNode params = McpJson.object();
      params.set("requestId", request.id().isNumber()
          ? JsonNodeFactory.instance.numberNode((Long) request.id().value())
          : JsonNodeFactory.instance.stringNode(String.valueOf(request.id().value())));
      params.put("reason", reason);
      JsonRpcNotification cancel = new JsonRpcNotification("notifications/cancelled", params);
      boolean modern = era == Era.MODERN;
      if (pin == null) {
        transport.send(cancel, new ClientTransport.SendOptions(modern, version, null));
      } else {
        transport.pinnedToSession(pin, () -> transport.send(cancel,
            ClientTransport.SendOptions.legacy(version)));
      }
    } catch (RuntimeException e) {
      LOG.debug("could not tell the server to cancel {}: {}", request.method(),
          Text.safe(e.getMessage()));
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private String watchProgress(ObjectNode params, ProgressListener listener) {
    long token = progressTokens.getAndIncrement();
    ObjectNode meta = params.get("_meta") instanceof ObjectNode m ? m : params.putObject("_meta");
    meta.put("progressToken", token);
    String key = Long.toString(token);
    progress.put(key, listener);
    return key;
  }

  private <T> T parse(JsonNode node, Class<T> type, String what) {
    if (node == null || !node.isObject()) {
      throw new InvalidServerResponseException("the " + what + " result lacks a required "
          + "member (" + type.getSimpleName() + ")");
    }
    try {
      return json.fromTree(node, type);
    } catch (RuntimeException e) {
      throw new InvalidServerResponseException("the " + what + " result is malformed ("
          + type.getSimpleName() + ")", e);
    }
  }

  /** Follows a paginated list, guarding against a server that never stops. */
  private <T> List<T> listAll(String method, String member, Class<T> type) {
    List<T> all = new ArrayList<>();
    Set<String> cursors = new HashSet<>();
    String cursor = null;
    for (int page = 0; page < config.maxPages; page++) {
      ObjectNode params = McpJson.object();
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      JsonNode result = call(method, params, null);
      JsonNode items = result.get(member);
      if (items != null && !items.isNull()) {
        if (!items.isArray()) {
          throw new InvalidServerResponseException("the " + method + " result's " + member
              + " is not an array");
        }
        for (JsonNode item : items) {
          try {
            all.add(parse(item, type, method));
          } catch (InvalidServerResponseException e) {
            // One malformed entry (a tool name out of the allowed set, a missing member) costs
            // that entry, not the list.
            LOG.warn("left out an entry of {} the client cannot use: {}", method,
                Text.safe(String.valueOf(e.getCause() != null ? e.getCause().getMessage()
                    : e.getMessage())));
          }
        }
      }
      JsonNode next = result.get("nextCursor");
      if (next == null || next.isNull()) {
        return all;
      }
      if (!next.isString() || !cursors.add(next.stringValue())) {
        throw new InvalidServerResponseException("the server repeated a pagination cursor of "
            + method + "; stopped after " + (page + 1) + " pages");
      }
      cursor = next.stringValue();
    }
    throw new InvalidServerResponseException(method + " returned more than " + config.maxPages
        + " pages; stopped");
  }

  // ---------------------------------------------------------------- the API

  @Override
  public Era era() {
    return era;
  }

  @Override
  public String protocolVersion() {
    return version;
  }

  @Override
  public Implementation serverInfo() {
    return serverInfo;
  }

  @Override
  public ServerCapabilities serverCapabilities() {
    return serverCapabilities;
  }

  @Override
  public String instructions() {
    return instructions;
  }

  @Override
  public List<Tool> listTools() {
    return catalog.replace(listAll("tools/list", "tools", Tool.class));
  }

  @Override
  public CallToolResult callTool(String name, JsonNode arguments, CallOptions options) {
    ObjectNode params = toolCall(name, arguments);
    CallOptions o = options == null ? CallOptions.defaults() : options;
    if (tasks.mustRunAsTask(name)) {
      Duration timeout = o.timeout() != null ? o.timeout() : config.requestTimeout;
      return tasks.runToCompletion(params, timeout, o.progress());
    }
    JsonNode result = call("tools/call", params, o);
    return parse(result, CallToolResult.class, "tools/call");
  }

  /** Checks a call against what the server listed and returns its params. */
  private ObjectNode toolCall(String name, JsonNode arguments) {
    Objects.requireNonNull(name, "name");
    if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
      throw new IllegalArgumentException("tool arguments must be a JSON object");
    }
    JsonNode args = arguments == null || arguments.isNull() ? McpJson.object() : arguments;
    if (!catalog.loaded() && serverCapabilities != null && serverCapabilities.tools() != null) {
      try {
        listTools();
      } catch (RuntimeException e) {
        LOG.debug("could not list the tools before calling {}: {}", Text.safe(name),
            Text.safe(e.getMessage()));
      }
    }
    catalog.refusal(name).ifPresent(why -> {
      throw new IllegalArgumentException("tool " + name + " is not called: " + why);
    });
    List<String> problems = catalog.check(name, args);
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException("arguments for tool " + name + " do not match its "
          + "input schema: " + String.join("; ", problems));
    }
    ObjectNode params = McpJson.object();
    params.put("name", name);
    params.set("arguments", args);
    return params;
  }

  /** Returns the listed tool's task support ({@code forbidden} when unknown). */
  String taskSupport(String name) {
    return catalog.find(name).map(e -> e.tool().execution())
        .map(x -> x.taskSupport() == null ? "forbidden" : x.taskSupport()).orElse("forbidden");
  }

  @Override
  public Task callToolAsTask(String name, JsonNode arguments, CallOptions options) {
    ObjectNode params = toolCall(name, arguments);
    CallOptions o = options == null ? CallOptions.defaults() : options;
    return tasks.create(params, o.timeout() != null ? o.timeout() : config.requestTimeout);
  }

  @Override
  public Task getTask(Task task) {
    return tasks.get(task);
  }

  @Override
  public Task cancelTask(Task task) {
    return tasks.cancel(task);
  }

  @Override
  public CallToolResult awaitTask(Task task, Duration timeout) {
    return tasks.await(task, timeout == null ? config.requestTimeout : timeout, false);
  }

  @Override
  public List<Resource> listResources() {
    return listAll("resources/list", "resources", Resource.class);
  }

  @Override
  public List<ResourceTemplate> listResourceTemplates() {
    return listAll("resources/templates/list", "resourceTemplates", ResourceTemplate.class);
  }

  @Override
  public ReadResourceResult readResource(String uri) {
    Objects.requireNonNull(uri, "uri");
    JsonNode result = call("resources/read", McpJson.object().put("uri", uri), null);
    return parse(result, ReadResourceResult.class, "resources/read");
  }

  @Override
  public ResourceSubscription subscribe(String uri) {
    Objects.requireNonNull(uri, "uri");
    if (era == Era.MODERN) {
      return listen(uri);
    }
    call("resources/subscribe", McpJson.object().put("uri", uri), null);
    LegacySubscription s = new LegacySubscription(uri);
    legacySubscriptions.add(s);
    return s;
  }

  /** A legacy subscription: lives in the session, renewed by recovery. */
  private final class LegacySubscription implements ResourceSubscription {
    private final String uri;
    private volatile boolean open = true;

    LegacySubscription(String uri) {
      this.uri = uri;
    }

    @Override
    public String uri() {
      return uri;
    }

    @Override
    public void close() {
      if (!open) {
        return;
      }
      open = false;
      legacySubscriptions.remove(this);
      if (!closed) {
        try {
          call("resources/unsubscribe", McpJson.object().put("uri", uri), null);
        } catch (RuntimeException e) {
          LOG.debug("unsubscribe from {} failed: {}", Text.safe(uri), Text.safe(e.getMessage()));
        }
      }
    }
  }

  /**
   * A stateless subscription: a {@code subscriptions/listen} request whose stream stays open.
   * Returns once the server acknowledged the filter.
   */
  private ResourceSubscription listen(String uri) {
    PendingRequests.Pending waiting = pending.start();
    ObjectNode params = McpJson.object();
    params.putObject("notifications").putArray("resourceSubscriptions").add(uri);
    ObjectNode meta = params.putObject("_meta");
    meta.put(MetaKeys.PROTOCOL_VERSION, version);
    meta.set(MetaKeys.CLIENT_INFO, json.toObject(config.clientInfo));
    meta.set(MetaKeys.CLIENT_CAPABILITIES, json.toObject(host.capabilities()));
    JsonRpcRequest request = new JsonRpcRequest(waiting.id(), "subscriptions/listen", params);
    String key = String.valueOf(request.id().value());
    CompletableFuture<ObjectNode> ack = new CompletableFuture<>();
    acknowledgements.put(key, ack);
    ClientTransport.Exchange exchange;
    try {
      exchange = transport.send(request, new ClientTransport.SendOptions(true, version, null));
    } catch (RuntimeException e) {
      acknowledgements.remove(key);
      waiting.abandon();
      throw e;
    }
    CompletableFuture<Object> first = CompletableFuture.anyOf(ack,
        waiting.whenAnswered().toCompletableFuture());
    try {
      Object outcome = first.get(config.requestTimeout.toMillis(), TimeUnit.MILLISECONDS);
      if (outcome instanceof JsonRpcErrorResponse e) {
        JsonRpcError error = e.error();
        throw new McpException(error.code(), Text.safe(error.message()), error.data());
      }
      if (outcome instanceof JsonRpcResponse) {
        throw new InvalidServerResponseException("the server ended the subscription at once");
      }
      JsonNode honoured = ((ObjectNode) outcome).path("notifications")
          .path("resourceSubscriptions");
      boolean watched = false;
      for (JsonNode u : honoured) {
        watched |= u.isString() && u.stringValue().equals(uri);
      }
      if (!watched) {
        throw new McpException(ErrorCodes.RESOURCE_NOT_FOUND, "the server does not watch "
            + Text.safe(uri));
      }
    } catch (TimeoutException e) {
      stopListening(request, exchange, waiting, key);
      throw new RequestTimeoutException("subscriptions/listen", config.requestTimeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      stopListening(request, exchange, waiting, key);
      throw new RequestCancelledException("interrupted");
    } catch (ExecutionException e) {
      stopListening(request, exchange, waiting, key);
      throw e.getCause() instanceof RuntimeException r ? r
          : new ConnectionClosedException("the subscription failed");
    } catch (RuntimeException e) {
      stopListening(request, exchange, waiting, key);
      throw e;
    }
    return new ResourceSubscription() {
      private volatile boolean open = true;

      @Override
      public String uri() {
        return uri;
      }

      @Override
      public void close() {
        if (open) {
          open = false;
          stopListening(request, exchange, waiting, key);
        }
      }
    };
  }

  private void stopListening(JsonRpcRequest request, ClientTransport.Exchange exchange,
      PendingRequests.Pending waiting, String key) {
    acknowledgements.remove(key);
    waiting.abandon();
    cancelAtServer(request, exchange, null, "unsubscribed");
  }

  @Override
  public List<Prompt> listPrompts() {
    return listAll("prompts/list", "prompts", Prompt.class);
  }

  @Override
  public GetPromptResult getPrompt(String name, Map<String, String> arguments) {
    Objects.requireNonNull(name, "name");
    ObjectNode params = McpJson.object().put("name", name);
    if (arguments != null && !arguments.isEmpty()) {
      ObjectNode args = params.putObject("arguments");
      arguments.forEach(args::put);
    }
    return parse(call("prompts/get", params, null), GetPromptResult.class, "prompts/get");
  }

  @Override
  public Completion complete(CompletionReference reference, String argument, String value) {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(argument, "argument");
    ObjectNode params = McpJson.object();
    params.set("ref", json.toObject(reference));
    params.putObject("argument").put("name", argument).put("value", value == null ? "" : value);
    JsonNode result = call("completion/complete", params, null);
    return parse(result.get("completion"), Completion.class, "completion/complete");
  }

  @Override
  public void setLogLevel(LoggingLevel level) {
    Objects.requireNonNull(level, "level");
    if (era == Era.LEGACY) {
      call("logging/setLevel", McpJson.object().put("level", level.wireName()), null);
    }
    this.logLevel = level;
  }

  @Override
  public void ping() {
    // 2026-07-28 has no ping: discovery is the cheapest request every stateless server answers.
    call(era == Era.MODERN ? "server/discover" : "ping", McpJson.object(), null);
  }

  @Override
  public JsonNode request(String method, ObjectNode params, CallOptions options) {
    Objects.requireNonNull(method, "method");
    if (method.equals("initialize") || method.equals("server/discover")) {
      throw new IllegalArgumentException(method + " belongs to the handshake; the client "
          + "sends it itself");
    }
    return call(method, params, options);
  }

  @Override
  public ClientTransport transport() {
    return transport;
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      transport.close();
    } finally {
      pending.close("the client is closed");
      handlerThreads.shutdownNow();
    }
  }

  // ---------------------------------------------------------------- what the server sends

  /** Where the transport delivers; runs on transport threads and never blocks for long. */
  private final class Inbound implements ClientTransport.Receiver {

    @Override
    public void receive(JsonRpcMessage message) {
      if (message instanceof JsonRpcResponse || message instanceof JsonRpcErrorResponse) {
        if (!pending.complete(message)) {
          LOG.debug("discarded a response nothing waits for (id {})",
              Text.safe(String.valueOf(message.id())));
        }
      } else if (message instanceof JsonRpcNotification n) {
        notification(n);
      } else if (message instanceof JsonRpcRequest r) {
        serverRequest(r);
      }
    }

    @Override
    public void failed(RequestId id, RuntimeException failure) {
      pending.fail(id, failure);
    }

    @Override
    public void closed(RuntimeException why) {
      pending.close(why == null ? "the connection closed" : why.getMessage());
    }

    private void notification(JsonRpcNotification n) {
      ObjectNode params = n.params();
      if (n.method().equals("notifications/progress") && params != null) {
        JsonNode token = params.get("progressToken");
        ProgressListener listener = token == null ? null
            : progress.get(token.isNumber() ? Long.toString(token.asLong()) : "s:"
                + token.asString());
        if (listener != null) {
          JsonNode total = params.get("total");
          JsonNode message = params.get("message");
          try {
            listener.onProgress(params.path("progress").asDouble(),
                total != null && total.isNumber() ? total.asDouble() : null,
                message != null && message.isString() ? message.stringValue() : null);
          } catch (RuntimeException e) {
            LOG.warn("a progress listener failed: {}", Text.safe(e.getMessage()));
          }
          return;
        }
      }
      if (n.method().equals("notifications/subscriptions/acknowledged") && params != null) {
        JsonNode id = params.path("_meta").get(MetaKeys.SUBSCRIPTION_ID);
        CompletableFuture<ObjectNode> ack = id == null ? null
            : acknowledgements.get(id.isNumber() ? Long.toString(id.asLong()) : id.asString());
        if (ack != null) {
          ack.complete(params);
        }
      }
      NotificationListener listener = config.notifications;
      if (listener != null) {
        try {
          listener.onNotification(n.method(), params);
        } catch (RuntimeException e) {
          LOG.warn("the notification listener failed on {}: {}", Text.safe(n.method()),
              Text.safe(e.getMessage()));
        }
      }
    }

    /**
     * A question from the server. Its answer goes back into the session it came from, on a
     * handler thread; past {@code maxConcurrentHandlers} the server is told the client is busy.
     */
    private void serverRequest(JsonRpcRequest r) {
      long epoch = transport.sessionEpoch();
      if (!handlerSlots.tryAcquire()) {
        reply(new JsonRpcErrorResponse(r.id(), new JsonRpcError(ErrorCodes.INTERNAL_ERROR,
            "The client is busy", null)), epoch);
        return;
      }
      try {
        handlerThreads.execute(() -> {
          try {
            JsonRpcMessage answer;
            try {
              answer = new JsonRpcResponse(r.id(), host.answer(r.method(), r.params()));
            } catch (McpException e) {
              answer = new JsonRpcErrorResponse(r.id(), e.toError());
            }
            reply(answer, epoch);
          } finally {
            handlerSlots.release();
          }
        });
      } catch (java.util.concurrent.RejectedExecutionException e) {
        handlerSlots.release();
      }
    }

    private void reply(JsonRpcMessage answer, long epoch) {
      try {
        transport.pinnedToSession(epoch, () -> transport.send(answer,
            ClientTransport.SendOptions.legacy(version)));
      } catch (SessionChangedException e) {
        LOG.debug("dropped an answer for an ended session");
      } catch (RuntimeException e) {
        LOG.debug("could not answer the server: {}", Text.safe(e.getMessage()));
      }
    }
  }
}
