package dev.keel.mcp.opentelemetry;

import dev.keel.mcp.client.CallObserver;
import dev.keel.mcp.client.OutboundCall;
import dev.keel.mcp.core.RequestOutcome;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.InboundRequest;
import dev.keel.mcp.server.RequestObserver;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Traces a Keel server and a Keel client with OpenTelemetry, after the semantic conventions for
 * MCP: one span per request, named {@code {mcp.method.name} {target}} ({@code tools/call echo}),
 * of kind SERVER on the server and CLIENT on the client, with the attributes
 * {@code mcp.method.name}, {@code gen_ai.tool.name}, {@code gen_ai.prompt.name},
 * {@code gen_ai.operation.name}, {@code mcp.resource.uri}, {@code jsonrpc.request.id},
 * {@code mcp.protocol.version}, {@code mcp.session.id}, and on failure {@code error.type},
 * {@code rpc.response.status_code} and the status {@code ERROR} (a tool error too). The
 * session attribute is a digest of the session id (the first 16 bytes of its SHA-256, in hex),
 * the same on both sides, so the spans of one session group together while the tracing
 * backend never holds a live session id. Only a tool or prompt the server has names a server
 * span; any name a client sends is still recorded in {@code gen_ai.tool.name}.
 *
 * <p>The trace context travels in each request's {@code params._meta} ({@code traceparent},
 * {@code tracestate}, and {@code baggage} when a baggage propagator is configured): the client
 * injects it with the {@link OpenTelemetry}'s propagators (W3C Trace Context when none is
 * configured), the server extracts it and makes it the parent of its span. The server's span is
 * current on the thread that runs the handler, so spans the handler starts are its children; the
 * client's span is current on the calling thread while the request is on the wire.
 *
 * <pre>{@code
 * KeelTracing tracing = KeelTracing.of(openTelemetry);
 * McpServer server = McpServer.builder().name("demo").version("1.0.0")
 *     .observer(tracing.serverObserver())
 *     .build();
 * McpClient client = McpClient.builder(transport).observer(tracing.clientObserver()).connect();
 * }</pre>
 *
 * <p>Instances are thread-safe.
 */
public final class KeelTracing {

  /** The instrumentation scope of Keel's spans. */
  public static final String INSTRUMENTATION_SCOPE = "dev.keel.mcp";

  private static final TextMapGetter<ObjectNode> META = new TextMapGetter<>() {
    @Override
    public Iterable<String> keys(ObjectNode meta) {
      List<String> keys = new ArrayList<>();
      meta.propertyNames().forEach(keys::add);
      return keys;
    }

    @Override
    public String get(ObjectNode meta, String key) {
      JsonNode value = meta == null ? null : meta.get(key);
      return value != null && value.isString() ? value.stringValue() : null;
    }
  };

  private final Tracer tracer;
  private final TextMapPropagator propagator;

  private KeelTracing(Tracer tracer, TextMapPropagator propagator) {
    this.tracer = tracer;
    this.propagator = propagator;
  }

  /** Returns tracing through {@code openTelemetry}'s tracer provider and propagators. */
  public static KeelTracing of(OpenTelemetry openTelemetry) {
    Objects.requireNonNull(openTelemetry, "openTelemetry");
    TextMapPropagator configured = openTelemetry.getPropagators().getTextMapPropagator();
    // Without a configured propagator nothing would reach the server: W3C is what the
    // conventions for MCP name.
    TextMapPropagator propagator = configured.fields().isEmpty()
        ? W3CTraceContextPropagator.getInstance() : configured;
    return new KeelTracing(openTelemetry.getTracer(INSTRUMENTATION_SCOPE), propagator);
  }

  /** Returns the observer to give {@code McpServer.Builder#observer}: server spans. */
  public RequestObserver serverObserver() {
    return this::serverSpan;
  }

  /** Returns the observer to give {@code McpClient.Builder#observer}: client spans. */
  public CallObserver clientObserver() {
    return this::clientSpan;
  }

  private dev.keel.mcp.core.RequestObservation serverSpan(InboundRequest request) {
    // The client's context from _meta is the parent; without one, whatever is current.
    Context parent = propagator.extract(Context.current(), request.meta(), META);
    String target = request.registered() ? request.target() : null;
    SpanBuilder builder = tracer.spanBuilder(name(request.method(), target))
        .setSpanKind(SpanKind.SERVER).setParent(parent);
    attributes(builder, request.method(), request.toolName(), request.promptName(),
        request.resourceUri(), request.id(), request.protocolVersion(), request.sessionId());
    Span span = builder.startSpan();
    Scope scope = parent.with(span).makeCurrent();
    return outcome -> end(span, scope, outcome);
  }

  private dev.keel.mcp.core.RequestObservation clientSpan(OutboundCall call) {
    Context parent = Context.current();
    String target = call.toolName() != null ? call.toolName() : call.promptName();
    SpanBuilder builder = tracer.spanBuilder(name(call.method(), target))
        .setSpanKind(SpanKind.CLIENT).setParent(parent);
    attributes(builder, call.method(), call.toolName(), call.promptName(), call.resourceUri(),
        call.id(), call.protocolVersion(), call.sessionId());
    Span span = builder.startSpan();
    Context context = parent.with(span);
    propagator.inject(context, call, KeelTracing::putMeta);
    Scope scope = context.makeCurrent();
    return outcome -> end(span, scope, outcome);
  }

  private static void putMeta(OutboundCall call, String key, String value) {
    if (call != null) {
      call.putMeta(key, value);
    }
  }

  private static String name(String method, String target) {
    return target == null ? method : method + " " + target;
  }

  private static void attributes(SpanBuilder b, String method, String tool, String prompt,
      String uri, RequestId id, String version, String session) {
    b.setAttribute("mcp.method.name", method);
    if (tool != null) {
      b.setAttribute("gen_ai.tool.name", tool);
      b.setAttribute("gen_ai.operation.name", "execute_tool");
    }
    if (prompt != null) {
      b.setAttribute("gen_ai.prompt.name", prompt);
    }
    if (uri != null) {
      b.setAttribute("mcp.resource.uri", uri);
    }
    b.setAttribute("jsonrpc.request.id", String.valueOf(id.value()));
    if (version != null) {
      b.setAttribute("mcp.protocol.version", version);
    }
    if (session != null) {
      b.setAttribute("mcp.session.id", sessionDigest(session));
    }
  }

  /**
   * A digest of a session id: it tells the spans of one session apart as the id does, on both
   * sides, without handing the tracing backend a live session id.
   */
  static String sessionDigest(String sessionId) {
    try {
      byte[] hash = java.security.MessageDigest.getInstance("SHA-256")
          .digest(sessionId.getBytes(java.nio.charset.StandardCharsets.UTF_8));
      return java.util.HexFormat.of().formatHex(hash, 0, 16);
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JVM has SHA-256", e);
    }
  }

  private static void end(Span span, Scope scope, RequestOutcome outcome) {
    try {
      String errorType = outcome.errorType();
      if (errorType != null) {
        span.setAttribute("error.type", errorType);
        if (outcome.status() == RequestOutcome.Status.ERROR) {
          span.setAttribute("rpc.response.status_code", Integer.toString(outcome.errorCode()));
        }
        span.setStatus(StatusCode.ERROR, outcome.message() == null ? "" : outcome.message());
      }
    } finally {
      scope.close();
      span.end();
    }
  }
}
