package dev.keel.mcp.core;

/**
 * What an observer keeps for one request between its start and its end: a span, a timer
 * sample, a scope that makes a trace context current. Returned by the server's
 * {@code RequestObserver} and the client's {@code CallObserver} when a request starts, and ended
 * exactly once, on the same thread, when it ends.
 *
 * <p>On a server that thread is the one that runs the handler, so a scope opened at the start
 * is current inside the handler. {@link #end} runs when the answer is ready, before it is
 * written, and must not block or throw (what it throws is logged and dropped).
 *
 * <pre>{@code
 * RequestObservation observation = outcome -> timer.record(outcome.duration());
 * }</pre>
 */
@FunctionalInterface
public interface RequestObservation {

  /** Observes nothing; the engines skip all measuring when every observation is this one. */
  RequestObservation NONE = outcome -> { };

  /** The request ended; called once, on the thread the observation was started on. */
  void end(RequestOutcome outcome);
}
