package dev.keel.mcp.micrometer;

import dev.keel.mcp.client.CallObserver;
import dev.keel.mcp.core.RequestObservation;
import dev.keel.mcp.core.RequestOutcome;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.RequestObserver;
import dev.keel.mcp.server.ServerMetrics;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;

/**
 * Registers what a Keel server and a Keel client measure with a Micrometer
 * {@link MeterRegistry}: a timer of every request by method, tool, prompt and outcome, a counter
 * of JSON-RPC errors by code, and the server's live gauges and counters.
 *
 * <p>The timers follow the OpenTelemetry semantic conventions for MCP:
 * {@value #SERVER_DURATION} and {@value #CLIENT_DURATION}, tagged {@code mcp.method.name},
 * {@code gen_ai.tool.name}, {@code gen_ai.prompt.name}, {@code mcp.protocol.version},
 * {@code error.type} and {@code outcome}. A tag with nothing to say is {@code none}, so every
 * meter of a name has the same tag keys (Prometheus requires it). A tool or prompt name a
 * client sent that the server does not have is tagged {@code _OTHER}, so no client can grow the
 * registry. The server's gauges and counters are named {@code keel.server.*}; the conventions
 * have none of them. docs/observability.md lists every meter.
 *
 * <pre>{@code
 * MeterRegistry registry = new SimpleMeterRegistry();
 * KeelMetrics metrics = KeelMetrics.of(registry);
 * McpServer server = McpServer.builder().name("demo").version("1.0.0")
 *     .observer(metrics.serverObserver())
 *     .build();
 * metrics.bind(server);
 * McpClient client = McpClient.builder(transport).observer(metrics.clientObserver()).connect();
 * }</pre>
 *
 * <p>Instances are thread-safe. Recording runs on the thread that ends the request and never
 * blocks.
 */
public final class KeelMetrics {

  /** The server's request timer. */
  public static final String SERVER_DURATION = "mcp.server.operation.duration";
  /** The client's request timer. */
  public static final String CLIENT_DURATION = "mcp.client.operation.duration";
  /** The server's JSON-RPC errors, by code. */
  public static final String SERVER_ERRORS = "mcp.server.errors";
  /** The client's JSON-RPC errors, by code. */
  public static final String CLIENT_ERRORS = "mcp.client.errors";

  private static final String NONE = "none";
  private static final String OTHER = "_OTHER";

  private final MeterRegistry registry;
  private final Tags common;

  private KeelMetrics(MeterRegistry registry, Tags common) {
    this.registry = registry;
    this.common = common;
  }

  /** Returns the meters of Keel in {@code registry}. */
  public static KeelMetrics of(MeterRegistry registry) {
    return of(registry, Tags.empty());
  }

  /** Returns the meters of Keel in {@code registry}, each with {@code tags} added. */
  public static KeelMetrics of(MeterRegistry registry, Iterable<Tag> tags) {
    return new KeelMetrics(Objects.requireNonNull(registry, "registry"),
        Tags.of(Objects.requireNonNull(tags, "tags")));
  }

  /** Returns the observer to give {@link McpServer.Builder#observer}: the server's timers. */
  public RequestObserver serverObserver() {
    return request -> {
      boolean known = request.registered();
      String tool = request.toolName() == null ? NONE : known ? request.toolName() : OTHER;
      String prompt = request.promptName() == null ? NONE
          : known ? request.promptName() : OTHER;
      return outcome -> record(SERVER_DURATION, SERVER_ERRORS, request.method(), tool, prompt,
          request.protocolVersion(), outcome);
    };
  }

  /** Returns the observer to give {@code McpClient.Builder#observer}: the client's timers. */
  public CallObserver clientObserver() {
    return call -> {
      // The application names what its client calls: its own names are bounded.
      String tool = call.toolName() == null ? NONE : call.toolName();
      String prompt = call.promptName() == null ? NONE : call.promptName();
      RequestObservation observation = outcome -> record(CLIENT_DURATION, CLIENT_ERRORS,
          call.method(), tool, prompt, call.protocolVersion(), outcome);
      return observation;
    };
  }

  private void record(String timer, String errors, String method, String tool, String prompt,
      String version, RequestOutcome outcome) {
    String errorType = outcome.errorType();
    Tags tags = common.and(
        Tag.of("mcp.method.name", method),
        Tag.of("gen_ai.tool.name", tool),
        Tag.of("gen_ai.prompt.name", prompt),
        Tag.of("mcp.protocol.version", version == null ? NONE : version),
        Tag.of("error.type", errorType == null ? NONE : errorType),
        Tag.of("outcome", outcome.status().name().toLowerCase(Locale.ROOT)));
    Timer.builder(timer)
        .description(timer.equals(SERVER_DURATION)
            ? "MCP requests as the server served them, from start to answer"
            : "MCP requests as the client sent them, from write to answer")
        .tags(tags)
        .register(registry)
        .record(outcome.duration());
    if (outcome.status() == RequestOutcome.Status.ERROR) {
      Counter.builder(errors)
          .description("JSON-RPC error answers, by code")
          .tags(common.and(Tag.of("mcp.method.name", method),
              Tag.of("rpc.response.status_code", Integer.toString(outcome.errorCode()))))
          .register(registry)
          .increment();
    }
  }

  /**
   * Registers the gauges and counters of {@code server}'s {@link ServerMetrics}, read live:
   * sessions, in-flight requests, listening streams, owner bindings, running tasks (gauges);
   * cancellations, evictions, refused sessions and requests, created tasks (counters).
   *
   * @param tags added to these meters, for a process that runs several servers
   */
  public void bind(McpServer server, Tag... tags) {
    ServerMetrics m = Objects.requireNonNull(server, "server").metrics();
    Tags t = common.and(tags);
    gauge("keel.server.sessions", "Live legacy sessions", m, ServerMetrics::sessions, t);
    gauge("keel.server.requests.in_flight", "Requests whose handlers are running", m,
        ServerMetrics::inFlightRequests, t);
    gauge("keel.server.listening_streams", "Sessions with a listening stream attached", m,
        ServerMetrics::listeningStreams, t);
    gauge("keel.server.owner_bindings", "Session ids bound to an owner", m,
        ServerMetrics::ownerBindings, t);
    gauge("keel.server.tasks.running", "Tasks running now", m, ServerMetrics::runningTasks, t);
    counter("keel.server.cancellations", "Requests cancelled (client, timeout, disconnect, "
        + "DELETE)", m, ServerMetrics::cancellations, t);
    counter("keel.server.sessions.evicted", "Sessions evicted for idleness", m,
        ServerMetrics::evictions, t);
    counter("keel.server.sessions.refused", "New sessions refused at a limit", m,
        ServerMetrics::refusedSessions, t);
    counter("keel.server.requests.refused", "Requests refused at the in-flight limit", m,
        ServerMetrics::refusedRequests, t);
    counter("keel.server.tasks.created", "Tasks created", m, ServerMetrics::tasksCreated, t);
  }

  private void gauge(String name, String description, ServerMetrics m,
      ToDoubleFunction<ServerMetrics> value, Tags tags) {
    // A strong reference: the gauge reads the server's counters for as long as it is
    // registered, not until the next collection.
    Gauge.builder(name, m, value).description(description).tags(tags).strongReference(true)
        .register(registry);
  }

  private void counter(String name, String description, ServerMetrics m,
      ToDoubleFunction<ServerMetrics> value, Tags tags) {
    FunctionCounter.builder(name, m, value).description(description).tags(tags)
        .register(registry);
  }
}
