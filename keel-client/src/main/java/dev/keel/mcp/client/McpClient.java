package dev.keel.mcp.client;

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
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A connection to one MCP server, in whichever era the server speaks.
 *
 * <p>{@link Builder#connect()} finds the era (a {@code server/discover} probe; a definite
 * rejection means a legacy server, which then gets {@code initialize}), and from then on every
 * method works the same in both eras: in the legacy era over the session, in the stateless era
 * with each request carrying its own {@code _meta}, and with the server's questions (elicitation,
 * sampling, roots) answered by the handlers registered on the builder.
 *
 * <p>Failures are unchecked: {@link dev.keel.mcp.core.McpException} when the server answered
 * with an error, {@link dev.keel.mcp.core.RequestTimeoutException} when it did not answer in
 * time (the request is then cancelled at the server), {@link TransportException} when the
 * connection failed, {@link SessionChangedException} when a request pinned to a session could
 * not be sent because the session ended, {@link InvalidServerResponseException} when the server
 * broke the protocol. A {@code tools/call} is never re-sent by the client.
 *
 * <pre>{@code
 * try (McpClient client = McpClient.builder(
 *         StreamableHttpTransport.builder(URI.create("http://127.0.0.1:8765/mcp")).build())
 *     .connect()) {
 *   CallToolResult r = client.callTool("echo", McpJson.standard().parseObject("{\"text\":\"hi\"}"));
 * }
 * }</pre>
 */
public interface McpClient extends AutoCloseable {

  /** Returns a builder for a client over {@code transport}; the client owns the transport. */
  static Builder builder(ClientTransport transport) {
    return new Builder(transport);
  }

  /** Returns the era the server speaks: {@link Era#LEGACY} or {@link Era#MODERN}. */
  Era era();

  /** Returns the negotiated protocol version. */
  String protocolVersion();

  /** Returns what the server says about itself, or null when a stateless server did not say. */
  Implementation serverInfo();

  /** Returns what the server offers. */
  ServerCapabilities serverCapabilities();

  /** Returns the server's instructions for the model, or null. */
  String instructions();

  /**
   * Lists every tool, following pages up to the builder's page cap. Tools whose
   * {@code x-mcp-header} annotations are invalid are left out: the client will not call them.
   *
   * @throws InvalidServerResponseException when the server repeats a cursor or exceeds the cap
   */
  List<Tool> listTools();

  /** Calls a tool with the default options. */
  default CallToolResult callTool(String name, JsonNode arguments) {
    return callTool(name, arguments, CallOptions.defaults());
  }

  /**
   * Calls a tool. The arguments are checked against the tool's input schema first (when the
   * client knows the tool); a call that fails the check is not sent. Interrupting the calling
   * thread, or the timeout passing, cancels the call at the server. A tool that requires a task
   * runs as one, transparently: the client polls it at the server's interval and answers its
   * input requests through the handlers.
   *
   * @param arguments an object, or null for none
   * @throws IllegalArgumentException when the arguments do not match the input schema
   */
  CallToolResult callTool(String name, JsonNode arguments, CallOptions options);

  /**
   * Calls a tool as a task: returns as soon as the server has created it. Legacy servers make a
   * task of every call to a tool whose {@code execution.taskSupport} is {@code optional} or
   * {@code required}; a stateless server decides, and may answer at once (then the handle is
   * already {@link Task.Status#COMPLETED} and has no id).
   *
   * @throws IllegalArgumentException when the tool does not support tasks
   */
  Task callToolAsTask(String name, JsonNode arguments, CallOptions options);

  /**
   * Returns the task's current state.
   *
   * @throws TaskReplacedException when a newer task took the handle's id
   * @throws IllegalArgumentException when the handle belongs to another client
   */
  Task getTask(Task task);

  /**
   * Asks the server to cancel the task and returns its state after the request. A task that
   * already ended is returned as it is.
   */
  Task cancelTask(Task task);

  /**
   * Waits for the task to end, answering its input requests through the handlers, and returns
   * its result. The task keeps running if the wait times out.
   *
   * @throws dev.keel.mcp.core.McpException when the task failed with a JSON-RPC error
   * @throws dev.keel.mcp.core.RequestCancelledException when the task was cancelled
   * @throws dev.keel.mcp.core.RequestTimeoutException when it did not end within
   *     {@code timeout}
   */
  CallToolResult awaitTask(Task task, Duration timeout);

  /** Lists every resource. */
  List<Resource> listResources();

  /** Lists every resource template. */
  List<ResourceTemplate> listResourceTemplates();

  /** Reads a resource. */
  ReadResourceResult readResource(String uri);

  /**
   * Asks to be told when a resource changes; {@code notifications/resources/updated} then
   * reaches the {@link NotificationListener}. Close the handle to stop.
   */
  ResourceSubscription subscribe(String uri);

  /** Lists every prompt. */
  List<Prompt> listPrompts();

  /** Gets a prompt filled with {@code arguments}. */
  GetPromptResult getPrompt(String name, Map<String, String> arguments);

  /** Asks the server to complete an argument of a prompt or resource template. */
  Completion complete(CompletionReference reference, String argument, String value);

  /**
   * Sets the lowest level of log messages the server sends. In the stateless era the level
   * travels with every later request.
   */
  void setLogLevel(LoggingLevel level);

  /** Checks that the server answers ({@code ping}; {@code server/discover} when stateless). */
  void ping();

  /**
   * Sends any request and returns its raw result: for methods this interface does not name.
   * Only idempotent methods are re-sent after a session expired.
   */
  JsonNode request(String method, ObjectNode params, CallOptions options);

  /** Returns the transport. */
  ClientTransport transport();

  /** Ends the session and closes the transport. Calls in flight fail. */
  @Override
  void close();

  /** Builds and connects an {@link McpClient}. */
  final class Builder {
    final ClientTransport transport;
    Implementation clientInfo = new Implementation("keel", null, "0.1.0", null, null, null);
    Era era = Era.AUTO;
    Duration requestTimeout = Duration.ofSeconds(60);
    Duration connectTimeout = Duration.ofSeconds(30);
    ElicitationHandler elicitation;
    SamplingHandler sampling;
    RootsProvider roots;
    NotificationListener notifications;
    int maxPages = 100;
    int maxInputRounds = 10;
    int maxPending = 1024;
    int maxConcurrentHandlers = 8;
    final List<CallObserver> observers = new java.util.ArrayList<>();

    Builder(ClientTransport transport) {
      this.transport = Objects.requireNonNull(transport, "transport");
    }

    /** Names the client to the server (default {@code keel}). */
    public Builder clientInfo(String name, String version) {
      this.clientInfo = new Implementation(Objects.requireNonNull(name, "name"), null,
          Objects.requireNonNull(version, "version"), null, null, null);
      return this;
    }

    /** Sets the era instead of probing for it (default {@link Era#AUTO}). */
    public Builder era(Era value) {
      this.era = Objects.requireNonNull(value, "era");
      return this;
    }

    /** Sets how long a request waits for its answer unless its options say (default 60 s). */
    public Builder requestTimeout(Duration value) {
      this.requestTimeout = positive(value, "requestTimeout");
      return this;
    }

    /** Sets how long the probe and the handshake may take (default 30 s). */
    public Builder connectTimeout(Duration value) {
      this.connectTimeout = positive(value, "connectTimeout");
      return this;
    }

    /** Answers the server's elicitation requests; declares the capability. */
    public Builder elicitation(ElicitationHandler handler) {
      this.elicitation = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Answers the server's sampling requests; declares the capability. */
    public Builder sampling(SamplingHandler handler) {
      this.sampling = Objects.requireNonNull(handler, "handler");
      return this;
    }

    /** Gives the server the client's roots; declares the capability. */
    public Builder roots(RootsProvider provider) {
      this.roots = Objects.requireNonNull(provider, "provider");
      return this;
    }

    /** Receives the server's notifications that no call waits for. */
    public Builder notifications(NotificationListener listener) {
      this.notifications = Objects.requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Adds an observer told when each request the client sends starts and ends (metrics,
     * tracing; it may add {@code _meta} entries such as {@code traceparent}). Several may be
     * added, and none costs nothing. See {@link CallObserver} for the threads.
     */
    public Builder observer(CallObserver value) {
      observers.add(Objects.requireNonNull(value, "observer"));
      return this;
    }

    /** Sets how many pages a list follows before giving up (default 100). */
    public Builder maxPages(int value) {
      this.maxPages = atLeastOne(value, "maxPages");
      return this;
    }

    /** Sets how many input rounds one stateless request may take (default 10). */
    public Builder maxInputRounds(int value) {
      this.maxInputRounds = atLeastOne(value, "maxInputRounds");
      return this;
    }

    /** Sets how many requests may wait on the server at once (default 1024). */
    public Builder maxPending(int value) {
      this.maxPending = atLeastOne(value, "maxPending");
      return this;
    }

    /** Sets how many server requests the handlers may work on at once (default 8). */
    public Builder maxConcurrentHandlers(int value) {
      this.maxConcurrentHandlers = atLeastOne(value, "maxConcurrentHandlers");
      return this;
    }

    /**
     * Starts the transport, finds the era and completes the handshake.
     *
     * @throws TransportException when the server cannot be reached, or answered in a way that
     *     tells nothing about its era (401, 403, 5xx, no answer)
     */
    public McpClient connect() {
      return RealMcpClient.connect(this);
    }

    private static Duration positive(Duration value, String what) {
      Objects.requireNonNull(value, what);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(what + " must be positive: " + value);
      }
      return value;
    }

    private static int atLeastOne(int value, String what) {
      if (value < 1) {
        throw new IllegalArgumentException(what + " must be at least 1: " + value);
      }
      return value;
    }
  }
}
