package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.HostHandlers;
import dev.keel.mcp.client.internal.ToolCatalog;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
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
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client: one connection, either era. This class is the API and nothing else; it composes
 * the parts that do the work, one concept each: {@link Handshake} (the era and sessions),
 * {@link Exchanges} (one request on the wire), {@link LegacyCalls} and {@link StatelessCalls}
 * (each era's rules for sending and re-sending), {@link Inbound} (what the server sends),
 * {@link Subscriptions}, {@link Pages} and {@link TaskCalls} (which sees the client only through
 * {@link TaskChannel}). They share what the client knows in one {@link ClientState}.
 */
final class RealMcpClient implements McpClient {

  private static final Logger LOG = LoggerFactory.getLogger(RealMcpClient.class);

  private final ClientTransport transport;
  private final McpClient.Builder config;
  private final ClientState state = new ClientState();
  private final ToolCatalog catalog = new ToolCatalog();
  private final HostHandlers host;
  private final Exchanges exchanges;
  private final Handshake handshake;
  private final LegacyCalls legacy;
  private final StatelessCalls stateless;
  private final Subscriptions subscriptions;
  private final Inbound inbound;
  private final TaskCalls tasks;

  private RealMcpClient(McpClient.Builder b) {
    McpJson json = McpJson.standard();
    this.transport = b.transport;
    this.config = b;
    this.host = new HostHandlers(json, b.elicitation, b.sampling, b.roots);
    this.exchanges = new Exchanges(transport, state, json, host, b.clientInfo, b.maxPending,
        new CallObserving(b.observers));
    this.handshake = new Handshake(transport, state, exchanges, host, json, b);
    this.legacy = new LegacyCalls(transport, state, exchanges, handshake);
    this.stateless = new StatelessCalls(state, exchanges, host, catalog, this::listTools,
        b.maxInputRounds);
    this.subscriptions = new Subscriptions(transport, state, exchanges, this::call,
        b.requestTimeout);
    this.inbound = new Inbound(transport, state, exchanges, subscriptions, host,
        b.notifications, b.maxConcurrentHandlers);
    this.tasks = new TaskCalls(new Channel());
  }

  static McpClient connect(McpClient.Builder b) {
    RealMcpClient client = new RealMcpClient(b);
    try {
      client.transport.start(client.inbound);
      client.handshake.connect();
      return client;
    } catch (RuntimeException e) {
      client.close();
      throw e;
    }
  }

  /** Sends a request in the connection's era and returns its result. */
  private JsonNode call(String method, ObjectNode params, CallOptions options) {
    if (state.closed) {
      throw new ConnectionClosedException("the client is closed");
    }
    CallOptions o = options == null ? CallOptions.defaults() : options;
    Duration timeout = o.timeout() != null ? o.timeout() : config.requestTimeout;
    if (state.modern()) {
      return stateless.call(method, params, timeout, o.progress(), false);
    }
    return legacy.call(method, params, timeout, o.progress());
  }

  /** The task machinery, for tests in this package. */
  TaskCalls tasks() {
    return tasks;
  }

  /** Returns how many requests wait for an answer; for tests in this package. */
  int pendingRequests() {
    return exchanges.pending().size();
  }

  /** Returns how many of the server's questions are being answered; for tests. */
  int questionsInFlight() {
    return inbound.questionsInFlight();
  }

  /** Waits until the handler threads have ended (after close); for tests in this package. */
  boolean awaitHandlers(Duration within) throws InterruptedException {
    return inbound.awaitHandlers(within);
  }

  @Override
  public Era era() {
    return state.era;
  }

  @Override
  public String protocolVersion() {
    return state.version;
  }

  @Override
  public Implementation serverInfo() {
    return state.serverInfo;
  }

  @Override
  public ServerCapabilities serverCapabilities() {
    return state.serverCapabilities;
  }

  @Override
  public String instructions() {
    return state.instructions;
  }

  @Override
  public List<Tool> listTools() {
    return catalog.replace(Pages.all(this::call, "tools/list", "tools", Tool.class,
        config.maxPages));
  }

  @Override
  public CallToolResult callTool(String name, JsonNode arguments, CallOptions options) {
    ObjectNode params = toolCall(name, arguments);
    CallOptions o = options == null ? CallOptions.defaults() : options;
    if (tasks.mustRunAsTask(name)) {
      Duration timeout = o.timeout() != null ? o.timeout() : config.requestTimeout;
      return tasks.runToCompletion(params, timeout, o.progress());
    }
    return Results.parse(call("tools/call", params, o), CallToolResult.class, "tools/call");
  }

  /** Checks a call against what the server listed and returns its params. */
  private ObjectNode toolCall(String name, JsonNode arguments) {
    Objects.requireNonNull(name, "name");
    if (arguments != null && !arguments.isNull() && !arguments.isObject()) {
      throw new IllegalArgumentException("tool arguments must be a JSON object");
    }
    JsonNode args = arguments == null || arguments.isNull() ? McpJson.object() : arguments;
    ServerCapabilities offered = state.serverCapabilities;
    if (!catalog.loaded() && offered != null && offered.tools() != null) {
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
    return Pages.all(this::call, "resources/list", "resources", Resource.class, config.maxPages);
  }

  @Override
  public List<ResourceTemplate> listResourceTemplates() {
    return Pages.all(this::call, "resources/templates/list", "resourceTemplates",
        ResourceTemplate.class, config.maxPages);
  }

  @Override
  public ReadResourceResult readResource(String uri) {
    Objects.requireNonNull(uri, "uri");
    JsonNode result = call("resources/read", McpJson.object().put("uri", uri), null);
    return Results.parse(result, ReadResourceResult.class, "resources/read");
  }

  @Override
  public ResourceSubscription subscribe(String uri) {
    return subscriptions.subscribe(Objects.requireNonNull(uri, "uri"));
  }

  @Override
  public List<Prompt> listPrompts() {
    return Pages.all(this::call, "prompts/list", "prompts", Prompt.class, config.maxPages);
  }

  @Override
  public GetPromptResult getPrompt(String name, Map<String, String> arguments) {
    Objects.requireNonNull(name, "name");
    ObjectNode params = McpJson.object().put("name", name);
    if (arguments != null && !arguments.isEmpty()) {
      ObjectNode args = params.putObject("arguments");
      arguments.forEach(args::put);
    }
    return Results.parse(call("prompts/get", params, null), GetPromptResult.class,
        "prompts/get");
  }

  @Override
  public Completion complete(CompletionReference reference, String argument, String value) {
    Objects.requireNonNull(reference, "reference");
    Objects.requireNonNull(argument, "argument");
    ObjectNode params = McpJson.object();
    params.set("ref", McpJson.standard().toObject(reference));
    params.putObject("argument").put("name", argument).put("value", value == null ? "" : value);
    JsonNode result = call("completion/complete", params, null);
    return Results.parse(result.get("completion"), Completion.class, "completion/complete");
  }

  @Override
  public void setLogLevel(LoggingLevel level) {
    Objects.requireNonNull(level, "level");
    if (state.era == Era.LEGACY) {
      call("logging/setLevel", McpJson.object().put("level", level.wireName()), null);
    }
    state.logLevel = level;
  }

  @Override
  public void ping() {
    // 2026-07-28 has no ping: discovery is the cheapest request every stateless server answers.
    call(state.modern() ? "server/discover" : "ping", McpJson.object(), null);
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
    if (state.closed) {
      return;
    }
    state.closed = true;
    try {
      transport.close();
    } finally {
      exchanges.close("the client is closed");
      inbound.close();
    }
  }

  /** What {@link TaskCalls} may use of this client. */
  private final class Channel implements TaskChannel {

    @Override
    public Era era() {
      return state.era;
    }

    @Override
    public ServerCapabilities serverCapabilities() {
      return state.serverCapabilities;
    }

    @Override
    public String taskSupport(String tool) {
      return catalog.find(tool).map(e -> e.tool().execution())
          .map(x -> x.taskSupport() == null ? "forbidden" : x.taskSupport())
          .orElse("forbidden");
    }

    @Override
    public long currentSession() {
      return legacy.currentSession();
    }

    @Override
    public JsonNode send(String method, ObjectNode params, Duration timeout, long epoch) {
      if (state.modern()) {
        if (state.closed) {
          throw new ConnectionClosedException("the client is closed");
        }
        return stateless.call(method, params, timeout, null, true);
      }
      return legacy.inSession(method, params, timeout, epoch);
    }

    @Override
    public JsonNode answer(String method, ObjectNode params) {
      return host.answer(method, params);
    }

    @Override
    public Duration defaultTimeout() {
      return config.requestTimeout;
    }

    @Override
    public <T> T guarded(Runnable guard, Supplier<T> work) {
      return transport.guardedWrites(guard, work);
    }
  }
}
