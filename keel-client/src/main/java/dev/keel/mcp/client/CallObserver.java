package dev.keel.mcp.client;

import dev.keel.mcp.core.RequestObservation;

/**
 * Told when each request the client sends starts and ends: the hook metrics and tracing bind
 * to ({@code keel-micrometer}, {@code keel-opentelemetry}), with no types of theirs in Keel.
 *
 * <p>{@link #started} runs on the calling thread after the request is built and before it is
 * written, so it may add {@code _meta} entries ({@link OutboundCall#putMeta}); the observation
 * it returns is ended on that same thread when the answer came, the call failed, timed out or
 * was cancelled. Every request on the wire is observed once: the era probe and
 * {@code initialize}, each round of a multi-round-trip call, each poll of a task. A request
 * re-sent after a session expired is observed again. The server's own requests to the client
 * (elicitation, sampling, roots) are not.
 *
 * <p>Observers must be quick and must not throw; what one throws is logged and ignored. A
 * client without an observer measures nothing extra.
 *
 * <pre>{@code
 * McpClient client = McpClient.builder(transport)
 *     .observer(call -> outcome -> log.info("{} {}: {} in {} ms", call.method(), call.target(),
 *         outcome.status(), outcome.duration().toMillis()))
 *     .connect();
 * }</pre>
 */
@FunctionalInterface
public interface CallObserver {

  /** Observes nothing. */
  CallObserver NONE = call -> RequestObservation.NONE;

  /**
   * A request is about to be written; returns what to end when it ends
   * ({@link RequestObservation#NONE} when nothing needs ending).
   */
  RequestObservation started(OutboundCall call);
}
