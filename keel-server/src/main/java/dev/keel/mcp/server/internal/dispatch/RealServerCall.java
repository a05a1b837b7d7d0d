package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.ErrorCodes;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.engine.CancellationSource;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.server.internal.metrics.Observing;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.server.transport.ServerCall;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A request resolved once into its route, or into an answer that needs no handler (an unknown
 * method, a malformed {@code _meta}, a session that ended). Starting it takes an admission slot,
 * then runs the handler inline (a non-blocking tool, where the transport allows) or hands it to
 * a handler thread, and ends the request's stream with the answer.
 */
public final class RealServerCall implements ServerCall {

  private static final Logger LOG = LoggerFactory.getLogger(RealServerCall.class);

  /** The in-flight limit: slots taken before any handler starts. */
  public interface Admissions {
    /** Takes a slot; false when none is free. */
    boolean tryAcquire();

    /** Frees a slot. */
    void release();
  }

  private final Dispatcher dispatcher;
  private final Executor handlers;
  private final Admissions admissions;
  private final Edge edge;
  private final JsonRpcRequest request;
  private final Optional<JsonRpcMessage> immediate;
  private final RequestView view;
  private final Route route;
  private final CancellationSource source;
  /** The cancellation registry's entry, or 0 when the call is not registered. */
  private final long entry;
  private final long createdNanos = System.nanoTime();

  RealServerCall(Dispatcher dispatcher, Executor handlers, Admissions admissions, Edge edge,
      JsonRpcRequest request, Optional<JsonRpcMessage> immediate, RequestView view,
      Route route) {
    this.dispatcher = dispatcher;
    this.handlers = handlers;
    this.admissions = admissions;
    this.edge = edge;
    this.request = request;
    this.immediate = immediate;
    this.view = view;
    this.route = route;
    // A non-blocking tool runs on the transport's own thread (a container thread): that
    // thread is never bound, so no cancel can interrupt it.
    boolean bind = route == null || !route.options().nonBlocking();
    this.source = new CancellationSource(route != null && route.options().interruptOnCancel()
        && bind);
    // Registered as soon as the request is resolved, long before its handler starts: a
    // notifications/cancelled that arrives meanwhile is never lost (inv17).
    this.entry = route == null ? 0 : dispatcher.register(view, edge, request, source);
  }

  @Override
  public JsonRpcRequest request() {
    return request;
  }

  @Override
  public boolean runsInline() {
    return immediate != null || route.inline();
  }

  @Override
  public Optional<ObjectNode> toolInputSchema() {
    return route == null || route.tool() == null ? Optional.empty()
        : Optional.ofNullable(route.tool().tool().inputSchema());
  }

  @Override
  public Set<String> missingScopes() {
    if (route == null) {
      return Set.of();
    }
    Set<String> required = route.requiredScopes();
    if (edge.principal().grants(required)) {
      return Set.of();
    }
    Set<String> missing = new java.util.TreeSet<>(required);
    missing.removeAll(edge.principal().scopes());
    return Set.copyOf(missing);
  }

  @Override
  public boolean start(RequestStream stream, boolean mayRunHere) {
    if (immediate != null) {
      dispatcher.observe(edge, request, view).end(immediate, false);
      dispatcher.pulse(createdNanos, immediate);
      stream.finish(immediate);
      return true;
    }
    Set<String> missing = missingScopes();
    if (!missing.isEmpty()) {
      // a transport that cannot answer 403 started it anyway: the handler never runs
      dispatcher.deregister(view, edge, request, entry);
      Optional<JsonRpcMessage> forbidden = Optional.of(new JsonRpcErrorResponse(request.id(),
          view.wire().error(new McpException(ErrorCodes.UNAUTHORIZED,
              "Forbidden: the call needs the scopes " + String.join(" ", missing)))));
      dispatcher.observe(edge, request, view).end(forbidden, false);
      dispatcher.pulse(createdNanos, forbidden);
      stream.finish(forbidden);
      return true;
    }
    if (!admissions.tryAcquire()) {
      dispatcher.deregister(view, edge, request, entry);
      return false;
    }
    if (route.inline() && mayRunHere) {
      runAndFinish(stream);
      return true;
    }
    try {
      handlers.execute(() -> runAndFinish(stream));
      return true;
    } catch (RejectedExecutionException e) {
      admissions.release();
      dispatcher.deregister(view, edge, request, entry);
      return false;
    }
  }

  @Override
  public void cancel(String reason) {
    source.cancel(reason);
  }

  private void runAndFinish(RequestStream stream) {
    Optional<JsonRpcMessage> answer = Optional.empty();
    // Started here, on the thread that runs the handler, so a scope it opens is current there.
    Observing.Started observed = dispatcher.observe(edge, request, view);
    try {
      answer = dispatcher.run(view, edge, request, stream, route, source, entry);
    } catch (RuntimeException | Error e) {
      answer = Optional.of(new JsonRpcErrorResponse(request.id(),
          HandlerFailures.internal(LOG, "request " + request.method(), e).toError()));
      if (e instanceof VirtualMachineError vm) {
        throw vm; // after the finally has answered
      }
    } finally {
      admissions.release();
      // Ended before the write: whatever the client sees has been observed.
      observed.end(answer, answer.isEmpty() && source.isCancelled());
      dispatcher.pulse(createdNanos, answer);
      stream.finish(answer);
    }
  }
}
