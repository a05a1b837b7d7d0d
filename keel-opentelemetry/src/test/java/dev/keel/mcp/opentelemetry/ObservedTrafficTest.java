package dev.keel.mcp.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.micrometer.KeelMetrics;
import dev.keel.mcp.server.McpServer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.RequiredSearch;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Real traffic, observed on both sides at once: a Keel server on an embedded Jetty on
 * 127.0.0.1, the Keel client over Streamable HTTP, in a legacy 2025-11-25 session and in the
 * stateless 2026-07-28 revision. Micrometer counts and times every call by tool and outcome
 * (including a tool error, a JSON-RPC error and a cancelled call), and OpenTelemetry sees one
 * trace from the client's call to the span current inside the server's handler.
 */
class ObservedTrafficTest {

  private static final AttributeKey<String> METHOD = AttributeKey.stringKey("mcp.method.name");
  private static final AttributeKey<String> TOOL = AttributeKey.stringKey("gen_ai.tool.name");
  private static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  private static final AttributeKey<String> REQUEST_ID =
      AttributeKey.stringKey("jsonrpc.request.id");
  private static final AttributeKey<String> VERSION =
      AttributeKey.stringKey("mcp.protocol.version");
  private static final AttributeKey<String> SESSION = AttributeKey.stringKey("mcp.session.id");

  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final SdkTracerProvider tracerProvider = SdkTracerProvider.builder()
      .addSpanProcessor(SimpleSpanProcessor.create(spans)).build();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(tracerProvider)
      .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
      .build();
  private final MeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicReference<SpanContext> inHandler = new AtomicReference<>();
  private final AtomicReference<String> handlerThread = new AtomicReference<>();
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private McpServer server;
  private McpHttpServer http;

  @BeforeEach
  void start() {
    KeelMetrics metrics = KeelMetrics.of(registry);
    KeelTracing tracing = KeelTracing.of(otel);
    String schema = "{\"type\":\"object\"}";
    server = McpServer.builder().name("observed").version("1.0.0")
        .observer(metrics.serverObserver())
        .observer(tracing.serverObserver())
        .tool(Tool.builder("echo").inputSchema("{\"type\":\"object\",\"properties\":"
                + "{\"text\":{\"type\":\"string\"}}}").build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .tool(Tool.builder("traced").inputSchema(schema).build(), (ctx, args) -> {
          inHandler.set(Span.current().getSpanContext());
          handlerThread.set(Thread.currentThread().toString());
          return CallToolResult.text("seen");
        })
        .tool(Tool.builder("fail").inputSchema(schema).build(),
            (ctx, args) -> CallToolResult.error("the tool could not do it"))
        .tool(Tool.builder("reject").inputSchema(schema).build(), (ctx, args) -> {
          throw new McpException(ErrorCodes.INVALID_PARAMS, "Invalid params: not today");
        })
        .tool(Tool.builder("slow").inputSchema(schema).build(), (ctx, args) -> {
          slowStarted.countDown();
          Thread.sleep(30_000); // until the cancellation interrupts it
          return CallToolResult.text("too late");
        })
        .build();
    metrics.bind(server);
    // A quick keep-alive: a stateless call is cancelled by closing its stream, which the
    // server notices at its next write.
    http = McpHttpServer.builder(server).host("127.0.0.1").port(0)
        .servlet(b -> b.keepAlive(Duration.ofMillis(200))).start();
  }

  @AfterEach
  void stop() {
    http.close();
    server.close();
    tracerProvider.close();
  }

  private McpClient connect(Era era) {
    KeelMetrics metrics = KeelMetrics.of(registry);
    KeelTracing tracing = KeelTracing.of(otel);
    return McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .era(era)
        .observer(metrics.clientObserver())
        .observer(tracing.clientObserver())
        .connect();
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void metersCountAndTimeEveryCallByToolAndOutcomeOnBothSides(Era era) throws Exception {
    try (McpClient client = connect(era)) {
      assertThat(client.era()).isEqualTo(era);
      client.callTool("echo", McpJson.object().put("text", "one"));
      client.callTool("echo", McpJson.object().put("text", "two"));
      assertThat(client.callTool("fail", McpJson.object()).isError()).isTrue();
      assertThatThrownBy(() -> client.callTool("reject", McpJson.object()))
          .isInstanceOfSatisfying(McpException.class,
              e -> assertThat(e.code()).isEqualTo(ErrorCodes.INVALID_PARAMS));
      // a name the server does not have: counted, but never as a tag of its own
      assertThatThrownBy(() -> client.request("tools/call",
          McpJson.object().put("name", "no-such-tool-" + System.nanoTime()), null))
          .isInstanceOf(McpException.class);
      assertThatThrownBy(() -> client.callTool("slow", McpJson.object(),
          CallOptions.defaults().withTimeout(Duration.ofMillis(500))))
          .isInstanceOf(RequestTimeoutException.class);
      assertThat(slowStarted.await(10, TimeUnit.SECONDS)).isTrue();

      for (String side : List.of(KeelMetrics.SERVER_DURATION, KeelMetrics.CLIENT_DURATION)) {
        assertThat(timer(side, "echo", "ok").timer().count()).as(side).isEqualTo(2);
        assertThat(timer(side, "echo", "ok").timer().totalTime(TimeUnit.NANOSECONDS))
            .as(side).isPositive();
        assertThat(timer(side, "fail", "tool_error").tag("error.type", "tool_error").timer()
            .count()).as(side).isEqualTo(1);
        assertThat(timer(side, "reject", "error").tag("error.type", "-32602").timer().count())
            .as(side).isEqualTo(1);
      }
      assertThat(registry.get(KeelMetrics.SERVER_ERRORS).tag("mcp.method.name", "tools/call")
          .tag("rpc.response.status_code", "-32602").counter().count()).isEqualTo(2);
      assertThat(registry.get(KeelMetrics.CLIENT_ERRORS).tag("mcp.method.name", "tools/call")
          .tag("rpc.response.status_code", "-32602").counter().count()).isEqualTo(2);
      assertThat(timer(KeelMetrics.SERVER_DURATION, "_OTHER", "error").timer().count())
          .isEqualTo(1);
      assertThat(registry.find(KeelMetrics.SERVER_DURATION).timers()).noneMatch(
          t -> t.getId().getTag("gen_ai.tool.name").startsWith("no-such-tool"));
      assertThat(timer(KeelMetrics.CLIENT_DURATION, "slow", "timeout").tag("error.type",
          "timeout").timer().count()).isEqualTo(1);
      // the server's handler is interrupted by the cancellation, then its request ends
      await().atMost(Duration.ofSeconds(20)).ignoreExceptions().untilAsserted(() -> {
        assertThat(timer(KeelMetrics.SERVER_DURATION, "slow", "cancelled").timer().count())
            .isEqualTo(1);
        assertThat(registry.get("keel.server.cancellations").functionCounter().count())
            .isGreaterThanOrEqualTo(1);
        assertThat(registry.get("keel.server.requests.in_flight").gauge().value()).isZero();
      });
      String handshake = era == Era.LEGACY ? "initialize" : "server/discover";
      assertThat(registry.get(KeelMetrics.CLIENT_DURATION).tag("mcp.method.name", handshake)
          .tag("outcome", "ok").timer().count()).isGreaterThanOrEqualTo(1);
      assertThat(registry.get("keel.server.sessions").gauge().value())
          .isEqualTo(era == Era.LEGACY ? 1 : 0);
      for (String gauge : List.of("keel.server.listening_streams", "keel.server.owner_bindings",
          "keel.server.tasks.running")) {
        assertThat(registry.get(gauge).gauge()).as(gauge).isNotNull();
      }
      for (String counter : List.of("keel.server.sessions.evicted",
          "keel.server.sessions.refused", "keel.server.requests.refused",
          "keel.server.tasks.created")) {
        assertThat(registry.get(counter).functionCounter().count()).as(counter).isZero();
      }
    }
  }

  private RequiredSearch timer(String name, String tool, String outcome) {
    return registry.get(name).tag("mcp.method.name", "tools/call").tag("gen_ai.tool.name", tool)
        .tag("outcome", outcome);
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void oneTraceRunsFromTheClientsCallIntoTheServersHandler(Era era) {
    try (McpClient client = connect(era)) {
      spans.reset();
      Span application = otel.getTracer("test").spanBuilder("application work").startSpan();
      try (var scope = application.makeCurrent()) {
        client.callTool("traced", McpJson.object());
      } finally {
        application.end();
      }
      SpanData clientSpan = only(SpanKind.CLIENT, "tools/call traced");
      SpanData serverSpan = only(SpanKind.SERVER, "tools/call traced");
      String trace = application.getSpanContext().getTraceId();

      assertThat(clientSpan.getTraceId()).isEqualTo(trace);
      assertThat(clientSpan.getParentSpanId())
          .isEqualTo(application.getSpanContext().getSpanId());
      assertThat(serverSpan.getTraceId()).isEqualTo(trace);
      assertThat(serverSpan.getParentSpanId()).isEqualTo(clientSpan.getSpanId());
      assertThat(serverSpan.getParentSpanContext().isRemote()).isTrue();
      // the span current inside the handler, on the handler's own thread, is the server's
      assertThat(inHandler.get().getTraceId()).isEqualTo(trace);
      assertThat(inHandler.get().getSpanId()).isEqualTo(serverSpan.getSpanId());
      // a handler thread, not the container's: a named platform thread on 17, a virtual
      // thread (which has no name) on 21 and later
      assertThat(handlerThread.get()).doesNotContain("qtp").satisfiesAnyOf(
          t -> assertThat(t).contains("keel-handler"),
          t -> assertThat(t).startsWith("VirtualThread"));

      for (SpanData span : List.of(clientSpan, serverSpan)) {
        assertThat(span.getAttributes().get(METHOD)).isEqualTo("tools/call");
        assertThat(span.getAttributes().get(TOOL)).isEqualTo("traced");
        assertThat(span.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")))
            .isEqualTo("execute_tool");
        assertThat(span.getAttributes().get(VERSION))
            .isEqualTo(era == Era.LEGACY ? "2025-11-25" : "2026-07-28");
        assertThat(span.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        assertThat(span.getAttributes().get(ERROR_TYPE)).isNull();
      }
      assertThat(serverSpan.getAttributes().get(REQUEST_ID))
          .isEqualTo(clientSpan.getAttributes().get(REQUEST_ID)).isNotBlank();
      if (era == Era.LEGACY) {
        assertThat(serverSpan.getAttributes().get(SESSION))
            .isEqualTo(clientSpan.getAttributes().get(SESSION))
            .isEqualTo(KeelTracing.sessionDigest(client.transport().sessionId()))
            .isNotEqualTo(client.transport().sessionId());
      } else {
        assertThat(serverSpan.getAttributes().get(SESSION)).isNull();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void toolErrorsAndJsonRpcErrorsMarkBothSpansAsErrors(Era era) {
    try (McpClient client = connect(era)) {
      spans.reset();
      client.callTool("fail", McpJson.object());
      assertThatThrownBy(() -> client.callTool("reject", McpJson.object()))
          .isInstanceOf(McpException.class);
      for (SpanKind kind : List.of(SpanKind.CLIENT, SpanKind.SERVER)) {
        SpanData failed = only(kind, "tools/call fail");
        assertThat(failed.getStatus().getStatusCode()).as(kind.name())
            .isEqualTo(StatusCode.ERROR);
        assertThat(failed.getAttributes().get(ERROR_TYPE)).isEqualTo("tool_error");
        SpanData rejected = only(kind, "tools/call reject");
        assertThat(rejected.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(rejected.getStatus().getDescription()).contains("not today");
        assertThat(rejected.getAttributes().get(ERROR_TYPE)).isEqualTo("-32602");
        assertThat(rejected.getAttributes().get(
            AttributeKey.stringKey("rpc.response.status_code"))).isEqualTo("-32602");
        // each server span is the child of its client span
        if (kind == SpanKind.SERVER) {
          assertThat(failed.getParentSpanId())
              .isEqualTo(only(SpanKind.CLIENT, "tools/call fail").getSpanId());
        }
      }
    }
  }

  private SpanData only(SpanKind kind, String name) {
    List<SpanData> found = spans.getFinishedSpanItems().stream()
        .filter(s -> s.getKind() == kind && s.getName().equals(name)).toList();
    assertThat(found).as("%s spans named %s among %s", kind, name,
        spans.getFinishedSpanItems()).hasSize(1);
    return found.get(0);
  }
}
