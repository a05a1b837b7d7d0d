package dev.keel.mcp.server;

import dev.keel.mcp.core.RequestObservation;

/**
 * Told when each request from a client starts and ends: the hook metrics and tracing bind to
 * ({@code keel-micrometer}, {@code keel-opentelemetry}), with no types of theirs in Keel.
 *
 * <p>{@link #started} runs on the thread that is about to run the request's handler (a
 * virtual thread on 21+; the container thread for a non-blocking tool), after the request was
 * admitted and before the handler starts; the observation it returns is ended on that same
 * thread when the answer is ready, before it is written. A scope opened in {@code started}
 * (a span made current) is therefore current inside the handler. {@code initialize} and
 * requests answered without a handler (an unknown method, a malformed {@code _meta}) are
 * observed too, on the transport's thread. Requests refused for capacity never start: they are
 * counted in {@link ServerMetrics#refusedRequests()}.
 *
 * <p>Observers must be quick and must not throw; what one throws is logged and ignored. Several
 * observers may be set: they start in the order they were added and end in the reverse order,
 * so scopes nest. A server without an observer measures nothing extra.
 *
 * <pre>{@code
 * McpServer server = McpServer.builder()
 *     .observer(request -> {
 *       return outcome -> log.info("{} {}: {}", request.method(), request.target(),
 *           outcome.status());
 *     })
 *     .build();
 * }</pre>
 */
@FunctionalInterface
public interface RequestObserver {

  /** Observes nothing. */
  RequestObserver NONE = request -> RequestObservation.NONE;

  /**
   * A request starts; returns what to end when it ends ({@link RequestObservation#NONE} when
   * nothing needs ending).
   */
  RequestObservation started(InboundRequest request);
}
