package dev.keel.mcp.server;

import dev.keel.mcp.core.jsonrpc.JsonLimits;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.ServerCapabilities;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.ServerEngine;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.node.ObjectNode;

/**
 * An MCP server: the tools, resources and prompts it offers, independent of any transport.
 *
 * <p>Build one, then serve it over HTTP ({@code McpHttpServer} in keel-http) or stdio
 * ({@link dev.keel.mcp.server.stdio.StdioServerTransport}); several transports may serve the same
 * server at once. The registry may change while it runs: clients with a session are told with
 * a list-changed notification.
 *
 * <pre>{@code
 * McpServer server = McpServer.builder()
 *     .name("demo").version("1.0.0")
 *     .tool(Tool.builder("echo")
 *             .description("Returns its text")
 *             .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
 *                 + "\"required\":[\"text\"]}")
 *             .build(),
 *         (ctx, args) -> CallToolResult.text(args.get("text").asString()))
 *     .build();
 * }</pre>
 *
 * <p>Instances are thread-safe.
 */
public interface McpServer extends AutoCloseable {

  /** Returns a new builder. */
  static Builder builder() {
    return new Builder();
  }

  /** Returns the server's name and version. */
  Implementation info();

  /** Returns the capabilities the server declares. */
  ServerCapabilities capabilities();

  /** Adds or replaces a tool and tells clients the tool list changed. */
  void addTool(Tool tool, ToolHandler handler);

  /** Adds or replaces a tool with options and tells clients the tool list changed. */
  void addTool(Tool tool, ToolOptions options, ToolHandler handler);

  /** Removes a tool; returns false when there was none by that name. */
  boolean removeTool(String name);

  /** Adds or replaces a resource and tells clients the resource list changed. */
  void addResource(Resource resource, ResourceHandler handler);

  /** Removes a resource; returns false when there was none with that URI. */
  boolean removeResource(String uri);

  /** Adds or replaces a prompt and tells clients the prompt list changed. */
  void addPrompt(Prompt prompt, PromptHandler handler);

  /** Removes a prompt; returns false when there was none by that name. */
  boolean removePrompt(String name);

  /**
   * Tells every session subscribed to {@code uri} that the resource changed.
   *
   * @return how many sessions were told
   */
  int resourceUpdated(String uri);

  /**
   * Pushes a notification to a session's listening stream. It never creates state and never
   * carries an id.
   *
   * @return true when a listening stream took it; false when the session is unknown or has none
   */
  boolean notify(String sessionId, String method, ObjectNode params);

  /** Returns live counts for operators: sessions, in-flight requests, streams, cancellations. */
  ServerMetrics metrics();

  /**
   * Returns the operator's view: live sessions, in-flight requests, tasks, subscriptions,
   * errors and a rolling history of calls, plus cancel actions that take the client's own
   * cancellation paths. Meant for an operator console, never for MCP clients.
   */
  ServerOperations operations();

  /** Returns the transport-facing engine. */
  ServerEngine engine();

  /** Ends every session and stops accepting work. */
  @Override
  void close();

  /**
   * Builds a {@link McpServer}. Not thread-safe; the server it builds is.
   */
  final class Builder {
    String name = "keel-server";
    String version = "0.1.0";
    String title;
    String instructions;
    JsonLimits limits = JsonLimits.defaults();
    int pageSize = 100;
    Duration clientRequestTimeout = Duration.ofMinutes(5);
    LoggingLevel defaultLogLevel = LoggingLevel.INFO;
    Duration handlerTimeout = Duration.ofSeconds(60);
    int maxSessions = 10_000;
    int maxSessionsPerPrincipal = 1_000;
    Duration sessionIdleTimeout = Duration.ofMinutes(30);
    int maxInFlightRequests = 1_024;
    boolean notificationChannels;
    byte[] requestStateKey;
    RequestStateKeys requestStateKeys;
    final List<byte[]> previousRequestStateKeys = new ArrayList<>();
    Duration requestStateTtl = Duration.ofMinutes(10);
    int maxInputRounds = 16;
    int maxSubscriptionsPerPrincipal = 16;
    dev.keel.mcp.server.spi.TaskStore taskStore;
    dev.keel.mcp.server.cluster.Cluster cluster = dev.keel.mcp.server.cluster.Cluster.single();
    int maxTasks = 10_000;
    int maxTasksPerPrincipal = 1_000;
    int maxActiveTasksPerPrincipal = 64;
    Duration defaultTaskTtl = Duration.ofMinutes(30);
    Duration maxTaskTtl = Duration.ofHours(24);
    Duration taskPollInterval = Duration.ofMillis(500);
    final java.util.Map<String, dev.keel.mcp.server.internal.dispatch.CacheHint> cacheHints =
        new java.util.HashMap<>(java.util.Map.of(
            "server/discover", new dev.keel.mcp.server.internal.dispatch.CacheHint(60_000, "public"),
            "tools/list", new dev.keel.mcp.server.internal.dispatch.CacheHint(60_000, "private"),
            "prompts/list", new dev.keel.mcp.server.internal.dispatch.CacheHint(60_000, "private"),
            "resources/list", new dev.keel.mcp.server.internal.dispatch.CacheHint(60_000, "private"),
            "resources/templates/list",
            new dev.keel.mcp.server.internal.dispatch.CacheHint(60_000, "private"),
            "resources/read", new dev.keel.mcp.server.internal.dispatch.CacheHint(0, "private")));
    final List<Registration> registrations = new ArrayList<>();
    final List<RequestObserver> observers = new ArrayList<>();

    Builder() {}

    /** Sets the server name. */
    public Builder name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /** Sets the server version. */
    public Builder version(String value) {
      this.version = Objects.requireNonNull(value, "version");
      return this;
    }

    /** Sets a display title. */
    public Builder title(String value) {
      this.title = value;
      return this;
    }

    /** Sets instructions for the model on how to use this server. */
    public Builder instructions(String value) {
      this.instructions = value;
      return this;
    }

    /** Sets the limits on messages read from clients (default 4 MiB, depth 64). */
    public Builder jsonLimits(JsonLimits value) {
      this.limits = Objects.requireNonNull(value, "limits");
      return this;
    }

    /** Sets how many items one page of a list carries (default 100). */
    public Builder pageSize(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("pageSize must be positive: " + value);
      }
      this.pageSize = value;
      return this;
    }

    /**
     * Sets how long a handler waits for the client to answer an elicitation, sampling or roots
     * request (default 5 minutes: a person may be answering).
     */
    public Builder clientRequestTimeout(Duration value) {
      this.clientRequestTimeout = positive(value, "clientRequestTimeout");
      return this;
    }

    /** Sets the log level of a session that never called {@code logging/setLevel}. */
    public Builder defaultLogLevel(LoggingLevel value) {
      this.defaultLogLevel = Objects.requireNonNull(value, "defaultLogLevel");
      return this;
    }

    /**
     * Adds an observer told when each request starts and ends (metrics, tracing); several
     * may be added, and none costs nothing. See {@link RequestObserver} for the threads.
     */
    public Builder observer(RequestObserver value) {
      observers.add(Objects.requireNonNull(value, "observer"));
      return this;
    }

    /** Registers a tool with the default options. */
    public Builder tool(Tool tool, ToolHandler handler) {
      return tool(tool, ToolOptions.defaults(), handler);
    }

    /** Registers a tool with options (timeout, interrupts, approval). */
    public Builder tool(Tool tool, ToolOptions options, ToolHandler handler) {
      registrations.add(new Registration.OfTool(Objects.requireNonNull(tool, "tool"),
          Objects.requireNonNull(options, "options"), Objects.requireNonNull(handler, "handler")));
      return this;
    }

    /**
     * Sets how long a handler may run before it is cancelled (default 60 s); a tool's own
     * {@link ToolOptions#timeout()} wins. A timed-out tool call is answered with a tool error.
     */
    public Builder handlerTimeout(Duration value) {
      this.handlerTimeout = positive(value, "handlerTimeout");
      return this;
    }

    /** Sets the most live sessions (default 10,000); past it, new sessions get 503. */
    public Builder maxSessions(int value) {
      this.maxSessions = positive(value, "maxSessions");
      return this;
    }

    /** Sets the most live sessions one principal may hold (default 1,000). */
    public Builder maxSessionsPerPrincipal(int value) {
      this.maxSessionsPerPrincipal = positive(value, "maxSessionsPerPrincipal");
      return this;
    }

    /**
     * Sets how long a session may stay idle before it is evicted (default 30 minutes). A busy
     * session is never evicted, and a healthy listening stream keeps its session active.
     */
    public Builder sessionIdleTimeout(Duration value) {
      this.sessionIdleTimeout = positive(value, "sessionIdleTimeout");
      return this;
    }

    /** Sets the most requests running at once (default 1,024); past it, requests get 503. */
    public Builder maxInFlightRequests(int value) {
      this.maxInFlightRequests = positive(value, "maxInFlightRequests");
      return this;
    }

    /**
     * Allows notification channels (default off): a listening stream under a session id that no
     * {@code initialize} created, claimed by the first principal to attach (trust on first use).
     * Such ids must be high-entropy (32 or more URL-safe characters). Use it only for ids the
     * application hands out itself, for {@link McpServer#notify}.
     */
    public Builder notificationChannels(boolean value) {
      this.notificationChannels = value;
      return this;
    }

    /**
     * Sets the key that seals multi-round-trip {@code requestState}s (HMAC-SHA256, 32 bytes or
     * more). By default each process draws a random key, so states do not survive a restart
     * and cannot be opened by another node; set one key on every node to share them.
     */
    public Builder requestStateKey(byte[] key) {
      Objects.requireNonNull(key, "key");
      if (key.length < 32) {
        throw new IllegalArgumentException("requestStateKey needs at least 32 bytes");
      }
      this.requestStateKey = key.clone();
      return this;
    }

    /** Adds a retired key whose states are still accepted while clients finish (rotation). */
    public Builder previousRequestStateKey(byte[] key) {
      Objects.requireNonNull(key, "key");
      if (key.length < 32) {
        throw new IllegalArgumentException("previousRequestStateKey needs at least 32 bytes");
      }
      previousRequestStateKeys.add(key.clone());
      return this;
    }

    /**
     * Seals {@code requestState}s with a key ring several nodes share and rotate together
     * (keel-redis has one); it replaces {@link #requestStateKey} and
     * {@link #previousRequestStateKey}.
     */
    public Builder requestStateKeys(RequestStateKeys ring) {
      this.requestStateKeys = Objects.requireNonNull(ring, "ring");
      return this;
    }

    /** Sets how long a {@code requestState} stays valid (default 10 minutes). */
    public Builder requestStateTtl(Duration value) {
      this.requestStateTtl = positive(value, "requestStateTtl");
      return this;
    }

    /** Sets the most input rounds one stateless request may take (default 16). */
    public Builder maxInputRounds(int value) {
      this.maxInputRounds = positive(value, "maxInputRounds");
      return this;
    }

    /** Sets the most open {@code subscriptions/listen} streams per principal (default 16). */
    public Builder maxSubscriptionsPerPrincipal(int value) {
      this.maxSubscriptionsPerPrincipal = positive(value, "maxSubscriptionsPerPrincipal");
      return this;
    }

    /**
     * Sets where tasks are kept (default: in memory, bounded by {@link #maxTasks} and
     * {@link #maxTasksPerPrincipal}). Handlers always run in this process; the store holds
     * their state and outcome.
     */
    public Builder taskStore(dev.keel.mcp.server.spi.TaskStore value) {
      this.taskStore = Objects.requireNonNull(value, "taskStore");
      return this;
    }

    /**
     * Sets the most tasks the default store keeps (default 10,000); when full it drops the
     * oldest task that already ended, and refuses new tasks when all are still running.
     */
    public Builder maxTasks(int value) {
      this.maxTasks = positive(value, "maxTasks");
      return this;
    }

    /**
     * Makes this server one node of several behind a load balancer (keel-redis's
     * {@code RedisCluster}): sessions are listed in the cluster's directory, the session limits
     * hold for all nodes together, and resource updates, notifications and task cancellations
     * reach the node that holds their target. Pair it with a shared task store and key ring.
     */
    public Builder cluster(dev.keel.mcp.server.cluster.Cluster value) {
      this.cluster = java.util.Objects.requireNonNull(value, "cluster");
      return this;
    }

    /** Sets the most tasks the default store keeps for one principal (default 1,000). */
    public Builder maxTasksPerPrincipal(int value) {
      this.maxTasksPerPrincipal = positive(value, "maxTasksPerPrincipal");
      return this;
    }

    /**
     * Sets the most tasks one principal may have running at once (default 64); past it a
     * task-augmented call is refused.
     */
    public Builder maxActiveTasksPerPrincipal(int value) {
      this.maxActiveTasksPerPrincipal = positive(value, "maxActiveTasksPerPrincipal");
      return this;
    }

    /**
     * Sets how long a task and its result are kept when the client asks for no ttl (default 30
     * minutes), and the longest ttl a client may ask for (default 24 hours). A task still running
     * when its ttl ends is cancelled.
     */
    public Builder taskTtl(Duration defaultTtl, Duration maxTtl) {
      Duration d = positive(defaultTtl, "defaultTtl");
      Duration m = positive(maxTtl, "maxTtl");
      if (d.compareTo(m) > 0) {
        throw new IllegalArgumentException("default task ttl exceeds the maximum: " + d);
      }
      this.defaultTaskTtl = d;
      this.maxTaskTtl = m;
      return this;
    }

    /** Sets the poll interval suggested to clients of tasks (default 500 ms). */
    public Builder taskPollInterval(Duration value) {
      this.taskPollInterval = positive(value, "taskPollInterval");
      return this;
    }

    /**
     * Sets the cache hint stateless clients get on a method's results: {@code ttlMs} and
     * {@code cacheScope} ({@code "public"} or {@code "private"}). Defaults: discovery 60 s
     * public, lists 60 s private (they may differ per principal), reads 0.
     *
     * @param method {@code server/discover}, a list method or {@code resources/read}
     */
    public Builder cacheHint(String method, Duration ttl, String scope) {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(ttl, "ttl");
      if (!cacheHints.containsKey(method)) {
        throw new IllegalArgumentException("no cache hint applies to " + method);
      }
      cacheHints.put(method, new dev.keel.mcp.server.internal.dispatch.CacheHint(
          ttl.toMillis(), scope));
      return this;
    }

    private static Duration positive(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
      return value;
    }

    private static int positive(int value, String name) {
      if (value <= 0) {
        throw new IllegalArgumentException(name + " must be positive: " + value);
      }
      return value;
    }

    /**
     * Registers every annotated method of {@code instance}: each {@link McpTool} as a tool, each
     * {@link McpResource} as a resource or resource template, each {@link McpPrompt} as a prompt
     * and each {@link McpCompletion} as the completion of an argument.
     *
     * <p>Names of parameters come from the annotations or, when the class is compiled with
     * {@code -parameters}, from the source. Methods of superclasses count; a method may be
     * private. A modular application opens the package of {@code instance} to
     * {@code dev.keel.mcp.server} and to {@code tools.jackson.databind}, which binds arguments.
     *
     * <pre>{@code
     * final class Library {
     *   @McpTool(description = "Finds books")
     *   List<Book> search(@ToolParam(description = "words of the title") String query,
     *       @ToolParam(defaultValue = "10") int limit) { ... }
     *
     *   @McpResource(uri = "books://{isbn}", description = "One book as JSON")
     *   Book book(String isbn) { ... }
     *
     *   @McpPrompt(description = "Writes a review of a book")
     *   String review(@PromptArg(description = "its ISBN") String isbn) { ... }
     *
     *   @McpCompletion(resource = "books://{isbn}", argument = "isbn")
     *   List<String> isbns(String prefix) { ... }
     * }
     * McpServer server = McpServer.builder().annotated(new Library()).build();
     * }</pre>
     *
     * <p>Everything that cannot work is found when {@link #build()} runs and fails it with an
     * {@code IllegalArgumentException} that names the class and method: a parameter without a
     * name, a type with no JSON form, a default that does not fit, a duplicate name, a template
     * variable without its parameter, a completion of an argument nobody declared.
     */
    public Builder annotated(Object instance) {
      registrations.add(new Registration.OfAnnotated(Objects.requireNonNull(instance, "instance")));
      return this;
    }

    /**
     * Registers every annotated method of {@code instance}; the same as
     * {@link #annotated(Object)}, under the name it had when only tools were annotated.
     */
    public Builder toolsFrom(Object instance) {
      return annotated(instance);
    }

    /**
     * Registers a resource under a fixed URI. With {@code requiredScopes}, only callers whose
     * OAuth token grants all of them see it in {@code resources/list} and may read or subscribe
     * to it (over HTTP others get 403 {@code insufficient_scope} naming them); principals
     * without scopes (API keys, local use) are not restricted, as for tools.
     */
    public Builder resource(Resource resource, ResourceHandler handler,
        String... requiredScopes) {
      registrations.add(new Registration.OfResource(Objects.requireNonNull(resource, "resource"),
          Objects.requireNonNull(handler, "handler"), scopes(requiredScopes)));
      return this;
    }

    /**
     * Registers a resource template (RFC 6570 level 1: {@code {name}} variables), optionally
     * only for callers granted {@code requiredScopes} (see {@link #resource}).
     */
    public Builder resourceTemplate(ResourceTemplate template, ResourceTemplateHandler handler,
        String... requiredScopes) {
      registrations.add(new Registration.OfTemplate(Objects.requireNonNull(template, "template"),
          Objects.requireNonNull(handler, "handler"), scopes(requiredScopes)));
      return this;
    }

    /**
     * Registers a prompt, optionally only for callers granted {@code requiredScopes} (listed,
     * and gettable, by them alone; see {@link #resource}).
     */
    public Builder prompt(Prompt prompt, PromptHandler handler, String... requiredScopes) {
      registrations.add(new Registration.OfPrompt(Objects.requireNonNull(prompt, "prompt"),
          Objects.requireNonNull(handler, "handler"), scopes(requiredScopes)));
      return this;
    }

    /** Registers a resource under a fixed URI that anyone may read. */
    public Builder resource(Resource resource, ResourceHandler handler) {
      return resource(resource, handler, new String[0]);
    }

    /** Registers a resource template that anyone may read through. */
    public Builder resourceTemplate(ResourceTemplate template, ResourceTemplateHandler handler) {
      return resourceTemplate(template, handler, new String[0]);
    }

    /** Registers a prompt that anyone may get. */
    public Builder prompt(Prompt prompt, PromptHandler handler) {
      return prompt(prompt, handler, new String[0]);
    }

    private static java.util.Set<String> scopes(String... values) {
      return dev.keel.mcp.server.internal.registry.Scopes.copyOf(List.of(values));
    }

    /** Registers argument completion for a prompt or a resource template. */
    public Builder completion(CompletionReference ref, CompletionHandler handler) {
      registrations.add(new Registration.OfCompletion(Objects.requireNonNull(ref, "ref"),
          Objects.requireNonNull(handler, "handler")));
      return this;
    }

    /**
     * Returns the server.
     *
     * @throws IllegalArgumentException when two features share a name or a schema is invalid
     */
    public McpServer build() {
      return new RealMcpServer(this);
    }
  }
}
