package dev.keel.mcp.test;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.SamplingHandler;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;

/**
 * A client for testing an MCP server: keel-client's {@link McpClient} with everything a test
 * wants to see recorded, connected in-process or over real HTTP, in either era.
 *
 * <p>Tool calls do not throw: {@link #call} returns a {@link ToolCall} holding the result, the
 * JSON-RPC error or the local failure, with the call's progress reports, for
 * {@link McpAssertions}. Notifications the server sends outside calls (logs, list changes,
 * resource updates, task status) are in {@link #notifications()}; the server's questions
 * (elicitation, sampling, roots) are answered by scripted {@link Replies} and recorded. The
 * client declares only the capabilities the builder was given replies for.
 *
 * <pre>{@code
 * try (McpTestClient client = McpTestClient.builder(server)
 *     .transport(TestTransport.HTTP).era(Era.LEGACY)
 *     .elicitation(Replies.accept("{\"name\":\"Ada\"}"))
 *     .connect()) {
 *   assertThat(client.call("greet")).succeeded().hasText("Hello, Ada!");
 * }
 * }</pre>
 *
 * <p>Closing it closes the client and whatever it started for itself (the in-memory transport
 * or the embedded HTTP server), never the {@link McpServer}, which belongs to the test.
 */
public final class McpTestClient implements AutoCloseable {

  private final McpClient client;
  private final TestTransport transport;
  private final URI endpoint;
  private final ScriptedReplies replies;
  private final RecordedNotifications notifications;
  private final List<AutoCloseable> owned;

  private McpTestClient(McpClient client, TestTransport transport, URI endpoint,
      ScriptedReplies replies, RecordedNotifications notifications, List<AutoCloseable> owned) {
    this.client = client;
    this.transport = transport;
    this.endpoint = endpoint;
    this.replies = replies;
    this.notifications = notifications;
    this.owned = owned;
  }

  /**
   * Returns a builder for a client of {@code server}: in-process by default, over HTTP with
   * {@link Builder#transport(TestTransport)}.
   */
  public static Builder builder(McpServer server) {
    return new Builder(Objects.requireNonNull(server, "server"), null);
  }

  /** Returns a builder for a client of a server already listening at {@code endpoint}. */
  public static Builder builder(URI endpoint) {
    return new Builder(null, Objects.requireNonNull(endpoint, "endpoint"));
  }

  /** Returns the era the client speaks with the server. */
  public Era era() {
    return client.era();
  }

  /** Returns how the client reaches the server. */
  public TestTransport transport() {
    return transport;
  }

  /** Returns the HTTP endpoint, or null in-process. */
  public URI endpoint() {
    return endpoint;
  }

  /** Returns the underlying client, for anything this one does not wrap. */
  public McpClient mcp() {
    return client;
  }

  /** Lists the server's tools. */
  public List<Tool> tools() {
    return client.listTools();
  }

  /** Calls a tool without arguments. */
  public ToolCall call(String tool) {
    return call(tool, McpJson.object(), null);
  }

  /** Calls a tool with arguments given as a JSON object, such as {@code {"text":"hi"}}. */
  public ToolCall call(String tool, String argumentsJson) {
    return call(tool, McpJson.standard().parseObject(argumentsJson), null);
  }

  /** Calls a tool with arguments. */
  public ToolCall call(String tool, JsonNode arguments) {
    return call(tool, arguments, null);
  }

  /**
   * Calls a tool and records what it came to; never throws for the call's own outcome.
   *
   * @param timeout how long to wait, or null for the builder's request timeout; on expiry the
   *     call is cancelled at the server and the {@link ToolCall} says it timed out
   */
  public ToolCall call(String tool, JsonNode arguments, Duration timeout) {
    return run(tool, arguments, timeout, new ProgressLog());
  }

  /** Starts a tool call on a thread of its own, to watch or cancel it while it runs. */
  public PendingCall start(String tool, String argumentsJson) {
    return start(tool, McpJson.standard().parseObject(argumentsJson));
  }

  /** Starts a tool call on a thread of its own; see {@link PendingCall}. */
  public PendingCall start(String tool, JsonNode arguments) {
    ProgressLog progress = new ProgressLog();
    CompletableFuture<ToolCall> outcome = new CompletableFuture<>();
    Thread caller = new Thread(() -> {
      try {
        outcome.complete(run(tool, arguments, null, progress));
      } catch (Throwable t) {
        outcome.completeExceptionally(t);
      }
    }, "keel-test-call-" + tool);
    caller.setDaemon(true);
    caller.start();
    return new PendingCall(tool, caller, outcome, progress);
  }

  /**
   * Calls a tool as a task and waits for the task's result: the {@link ToolCall} holds the
   * task as created ({@link ToolCall#task()}) and the result it ended with.
   */
  public ToolCall callAsTask(String tool, String argumentsJson) {
    JsonNode arguments = McpJson.standard().parseObject(argumentsJson);
    Task task = null;
    try {
      task = client.callToolAsTask(tool, arguments, CallOptions.defaults());
      CallToolResult result = client.awaitTask(task, null);
      return new ToolCall(tool, client.era(), result, null, null, List.of(), task);
    } catch (McpException e) {
      return new ToolCall(tool, client.era(), null, e, null, List.of(), task);
    } catch (RuntimeException e) {
      return new ToolCall(tool, client.era(), null, null, e, List.of(), task);
    }
  }

  private ToolCall run(String tool, JsonNode arguments, Duration timeout, ProgressLog progress) {
    Objects.requireNonNull(tool, "tool");
    CallOptions options = CallOptions.defaults().withTimeout(timeout).withProgress(progress);
    try {
      CallToolResult result = client.callTool(tool, arguments, options);
      return new ToolCall(tool, client.era(), result, null, null, progress.snapshot(), null);
    } catch (McpException e) {
      return new ToolCall(tool, client.era(), null, e, null, progress.snapshot(), null);
    } catch (RuntimeException e) {
      return new ToolCall(tool, client.era(), null, null, e, progress.snapshot(), null);
    }
  }

  /** Returns the notifications the server sent outside calls, as they arrive. */
  public RecordedNotifications notifications() {
    return notifications;
  }

  /** Returns the log messages so far; short for {@code notifications().logs()}. */
  public List<RecordedNotifications.Log> logs() {
    return notifications.logs();
  }

  /** Returns the elicitation requests the server made, oldest first. */
  public List<ElicitRequest> elicitations() {
    return List.copyOf(replies.elicitations);
  }

  /** Returns the sampling requests the server made, oldest first. */
  public List<CreateMessageRequest> samplings() {
    return List.copyOf(replies.samplings);
  }

  /** Returns how often the server asked for the roots. */
  public int rootsRequests() {
    return replies.rootsAsked.get();
  }

  /** Returns how many of the server's questions found no scripted reply left. */
  public int unansweredQuestions() {
    return replies.unanswered();
  }

  /** Adds an answer for a later elicitation (the client must have been built with one). */
  public McpTestClient enqueue(ElicitResult reply) {
    replies.elicitReplies.add(Objects.requireNonNull(reply, "reply"));
    return this;
  }

  /** Adds an answer for a later sampling request (the client must have been built with one). */
  public McpTestClient enqueue(CreateMessageResult reply) {
    replies.sampleReplies.add(Objects.requireNonNull(reply, "reply"));
    return this;
  }

  /** Closes the client, then what it started for itself. Idempotent. */
  @Override
  public void close() {
    try {
      client.close();
    } finally {
      for (AutoCloseable c : owned) {
        try {
          c.close();
        } catch (Exception e) {
          // closing is best effort: the next resource must still close
        }
      }
    }
  }

  /** The notification that tells the kit a legacy session's listening stream is up. */
  static final String LISTENING_PROBE = "notifications/keel-test/listening";

  /**
   * Waits until the session's listening stream (a GET the client opens after the handshake,
   * asynchronously) is attached, so that a notification the test causes right after
   * {@code connect()} is not lost. The SPI offers no way to ask, so the kit probes: a
   * notification the server could deliver proves the stream is there (the client drops it).
   */
  static void awaitListeningStream(McpServer server, String sessionId, Duration timeout) {
    if (sessionId == null) {
      return;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    while (!server.notify(sessionId, LISTENING_PROBE, null)) {
      if (System.nanoTime() > deadline) {
        return; // a server without a listening stream: notifications then ride on calls
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Builds and connects a {@link McpTestClient}. Not thread-safe; each {@link #connect()} makes
   * a new client with its own copy of the scripted replies.
   *
   * <pre>{@code
   * McpTestClient client = McpTestClient.builder(server).era(Era.MODERN)
   *     .sampling(Replies.sample("Sunny")).logLevel(LoggingLevel.INFO).connect();
   * }</pre>
   */
  public static final class Builder {
    private final McpServer server;
    private final URI endpoint;
    private final ScriptedReplies replies = new ScriptedReplies();
    private TestTransport transport;
    private Era era = Era.AUTO;
    private Principal principal = Principal.local();
    private Duration requestTimeout = Duration.ofSeconds(10);
    private String clientName = "keel-test";
    private String clientVersion = "1";
    private LoggingLevel logLevel;
    private boolean elicits;
    private boolean samples;
    private Consumer<McpHttpServer.Builder> http = b -> { };

    Builder(McpServer server, URI endpoint) {
      this.server = server;
      this.endpoint = endpoint;
      this.transport = server == null ? TestTransport.HTTP : TestTransport.IN_MEMORY;
    }

    /**
     * Sets how the client reaches the server (default {@link TestTransport#IN_MEMORY}); with
     * {@link TestTransport#HTTP} an embedded HTTP server on {@code 127.0.0.1}, port 0, is started
     * and stopped with the client.
     */
    public Builder transport(TestTransport value) {
      Objects.requireNonNull(value, "transport");
      if (server == null && value != TestTransport.HTTP) {
        throw new IllegalArgumentException("a client of an endpoint speaks HTTP: " + value);
      }
      this.transport = value;
      return this;
    }

    /** Sets the era (default {@link Era#AUTO}: probe with {@code server/discover}). */
    public Builder era(Era value) {
      this.era = Objects.requireNonNull(value, "era");
      return this;
    }

    /** Sets who the in-memory connection runs as (default {@link Principal#local()}). */
    public Builder principal(Principal value) {
      this.principal = Objects.requireNonNull(value, "principal");
      return this;
    }

    /** Sets how long a call waits unless it says otherwise (default 10 s). */
    public Builder requestTimeout(Duration value) {
      Objects.requireNonNull(value, "requestTimeout");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("requestTimeout must be positive: " + value);
      }
      this.requestTimeout = value;
      return this;
    }

    /** Names the client to the server (default {@code keel-test 1}). */
    public Builder clientInfo(String name, String version) {
      this.clientName = Objects.requireNonNull(name, "name");
      this.clientVersion = Objects.requireNonNull(version, "version");
      return this;
    }

    /** Asks for log messages from {@code level} up once connected. */
    public Builder logLevel(LoggingLevel value) {
      this.logLevel = Objects.requireNonNull(value, "logLevel");
      return this;
    }

    /**
     * Declares elicitation and answers the server's questions with these replies, in order;
     * more can be added with {@link McpTestClient#enqueue(ElicitResult)}.
     */
    public Builder elicitation(ElicitResult... scripted) {
      replies.elicitReplies.addAll(Arrays.asList(scripted));
      this.elicits = true;
      return this;
    }

    /** Declares elicitation and answers with {@code handler} (the requests are still recorded). */
    public Builder elicitation(ElicitationHandler handler) {
      replies.elicitHandler = Objects.requireNonNull(handler, "handler");
      this.elicits = true;
      return this;
    }

    /** Declares sampling and answers with these replies, in order. */
    public Builder sampling(CreateMessageResult... scripted) {
      replies.sampleReplies.addAll(Arrays.asList(scripted));
      this.samples = true;
      return this;
    }

    /** Declares sampling and answers with {@code handler} (the requests are still recorded). */
    public Builder sampling(SamplingHandler handler) {
      replies.sampleHandler = Objects.requireNonNull(handler, "handler");
      this.samples = true;
      return this;
    }

    /** Declares roots and gives the server these. */
    public Builder roots(Root... value) {
      replies.roots = List.of(value);
      return this;
    }

    /** Adjusts the embedded HTTP server (servlet options, limits) of {@link TestTransport#HTTP}. */
    public Builder httpServer(Consumer<McpHttpServer.Builder> value) {
      this.http = Objects.requireNonNull(value, "httpServer");
      return this;
    }

    /**
     * Starts what the transport needs, connects and returns the client.
     *
     * @throws RuntimeException whatever {@link McpClient.Builder#connect()} throws; anything
     *     started is stopped first
     */
    public McpTestClient connect() {
      List<AutoCloseable> owned = new ArrayList<>();
      // Each client gets its own copy of the script, so a builder may connect again.
      ScriptedReplies replies = this.replies.copy();
      try {
        URI uri = endpoint;
        ClientTransport wire;
        if (transport == TestTransport.IN_MEMORY) {
          InMemoryServerTransport memory = InMemoryServerTransport.create(server);
          owned.add(memory);
          wire = memory.connect(principal);
        } else {
          if (uri == null) {
            McpHttpServer.Builder b = McpHttpServer.builder(server).host("127.0.0.1").port(0);
            http.accept(b);
            McpHttpServer started = b.start();
            owned.add(started);
            uri = started.endpoint();
          }
          wire = StreamableHttpTransport.builder(uri).build();
        }
        RecordedNotifications notifications = new RecordedNotifications();
        McpClient.Builder b = McpClient.builder(wire).era(era).requestTimeout(requestTimeout)
            .connectTimeout(requestTimeout).clientInfo(clientName, clientVersion)
            .notifications((method, params) -> {
              if (!method.equals(LISTENING_PROBE)) {
                notifications.record(method, params);
              }
            });
        if (elicits) {
          b.elicitation(replies.elicitation());
        }
        if (samples) {
          b.sampling(replies.sampling());
        }
        if (replies.roots != null) {
          b.roots(replies.rootsProvider());
        }
        McpClient client = b.connect();
        owned.add(0, client);
        if (logLevel != null) {
          client.setLogLevel(logLevel);
        }
        if (transport == TestTransport.HTTP && server != null && client.era() == Era.LEGACY) {
          awaitListeningStream(server, client.transport().sessionId(), requestTimeout);
        }
        owned.remove(0);
        return new McpTestClient(client, transport, transport == TestTransport.HTTP ? uri : null,
            replies, notifications, List.copyOf(owned));
      } catch (RuntimeException e) {
        for (AutoCloseable c : owned) {
          try {
            c.close();
          } catch (Exception suppressed) {
            e.addSuppressed(suppressed);
          }
        }
        throw e;
      }
    }
  }
}
