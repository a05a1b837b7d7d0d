package dev.keel.mcp.server.internal.metrics;

import dev.keel.mcp.core.RequestObservation;
import dev.keel.mcp.core.RequestOutcome;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.server.InboundRequest;
import dev.keel.mcp.server.RequestObserver;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The server's observers, guarded: each is told in turn, what one throws is logged and never
 * reaches the request, and with none set nothing is built or measured.
 */
public final class Observing {

  private static final Logger LOG = LoggerFactory.getLogger(Observing.class);

  /** The observation of a request when no observer is set: ending it does nothing. */
  public static final Started NONE = new Started(null, List.of(), 0);

  private final List<RequestObserver> observers;

  /** Creates the set; an empty list observes nothing. */
  public Observing(List<RequestObserver> observers) {
    this.observers = List.copyOf(observers);
  }

  /** Returns true when some observer is set. */
  public boolean active() {
    return !observers.isEmpty();
  }

  /**
   * A request starts on this thread; {@code request} is built only when someone observes.
   */
  public Started start(Supplier<InboundRequest> request) {
    if (observers.isEmpty()) {
      return NONE;
    }
    long t0 = System.nanoTime();
    InboundRequest r;
    try {
      r = request.get();
    } catch (RuntimeException e) {
      LOG.warn("could not describe a request to its observers", e);
      return NONE;
    }
    RequestObservation[] started = new RequestObservation[observers.size()];
    for (int i = 0; i < started.length; i++) {
      try {
        started[i] = observers.get(i).started(r);
      } catch (RuntimeException e) {
        LOG.warn("a request observer failed at the start of {}", r.method(), e);
      }
    }
    for (int i = 0; i < started.length; i++) {
      started[i] = started[i] == null ? RequestObservation.NONE : started[i];
    }
    return new Started(r, List.of(started), t0);
  }

  /**
   * One observed request.
   *
   * @param request what the observers were told, or null when nobody observes
   * @param observations theirs, in start order
   * @param startNanos when it started
   */
  public record Started(InboundRequest request, List<RequestObservation> observations,
      long startNanos) {

    /** Ends every observation, in reverse order, with the outcome {@code answer} makes. */
    public void end(Optional<JsonRpcMessage> answer, boolean cancelled) {
      if (request == null) {
        return;
      }
      RequestOutcome outcome = outcomeOf(request.method(), answer, cancelled,
          Duration.ofNanos(System.nanoTime() - startNanos));
      for (int i = observations.size() - 1; i >= 0; i--) {
        try {
          observations.get(i).end(outcome);
        } catch (RuntimeException e) {
          LOG.warn("a request observer failed at the end of {}", request.method(), e);
        }
      }
    }
  }

  /** What the observers are told of an answer (none when cancelled or streamed elsewhere). */
  static RequestOutcome outcomeOf(String method, Optional<JsonRpcMessage> answer,
      boolean cancelled, Duration duration) {
    if (cancelled) {
      return new RequestOutcome(RequestOutcome.Status.CANCELLED, 0, null, null, duration);
    }
    JsonRpcMessage m = answer.orElse(null);
    if (m instanceof JsonRpcErrorResponse e) {
      return RequestOutcome.error(e.error().code(), e.error().message(), duration);
    }
    if (m instanceof JsonRpcResponse r && method.equals("tools/call")) {
      JsonNode isError = r.result() == null ? null : r.result().get("isError");
      if (isError != null && isError.asBoolean(false)) {
        return new RequestOutcome(RequestOutcome.Status.TOOL_ERROR, 0, null, null, duration);
      }
    }
    return RequestOutcome.ok(duration);
  }
}
