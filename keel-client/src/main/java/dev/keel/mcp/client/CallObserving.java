package dev.keel.mcp.client;

import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestObservation;
import dev.keel.mcp.core.RequestOutcome;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client's observers, guarded: each is told in turn, what one throws is logged and never
 * reaches the call, and with none set nothing is built or measured.
 */
final class CallObserving {

  private static final Logger LOG = LoggerFactory.getLogger(CallObserving.class);

  /** The observation of a call when no observer is set. */
  static final Started NONE = new Started(null, List.of(), 0);

  private final List<CallObserver> observers;

  CallObserving(List<CallObserver> observers) {
    this.observers = List.copyOf(observers);
  }

  /**
   * A request is about to be written on this thread; the observers may add to the
   * {@code _meta} of {@code params}, which is only made when someone observes.
   */
  Started start(String method, ObjectNode params, RequestId id, Era era, String version,
      String session) {
    if (observers.isEmpty()) {
      return NONE;
    }
    long t0 = System.nanoTime();
    ObjectNode meta = params.get("_meta") instanceof ObjectNode m ? m : params.putObject("_meta");
    OutboundCall call = new OutboundCall(method, targetOf(method, params), id, era, version,
        session, meta);
    RequestObservation[] started = new RequestObservation[observers.size()];
    for (int i = 0; i < started.length; i++) {
      try {
        started[i] = observers.get(i).started(call);
      } catch (RuntimeException e) {
        LOG.warn("a call observer failed at the start of {}", method, e);
      }
      started[i] = started[i] == null ? RequestObservation.NONE : started[i];
    }
    return new Started(call, List.of(started), t0);
  }

  private static String targetOf(String method, ObjectNode params) {
    String key = switch (method) {
      case "tools/call", "prompts/get" -> "name";
      case "resources/read", "resources/subscribe", "resources/unsubscribe" -> "uri";
      default -> null;
    };
    JsonNode value = key == null ? null : params.get(key);
    return value != null && value.isString() ? value.stringValue() : null;
  }

  /** One observed call; ended once, by {@link #answered} or {@link #failed}. */
  record Started(OutboundCall call, List<RequestObservation> observations, long startNanos) {

    /** The server answered with a result. */
    void answered(JsonNode result) {
      if (call == null) {
        return;
      }
      Duration d = elapsed();
      JsonNode isError = call.method().equals("tools/call") && result != null
          ? result.get("isError") : null;
      end(isError != null && isError.asBoolean(false)
          ? new RequestOutcome(RequestOutcome.Status.TOOL_ERROR, 0, null, null, d)
          : RequestOutcome.ok(d));
    }

    /** The call ended without a result. */
    void failed(RuntimeException e) {
      if (call == null) {
        return;
      }
      Duration d = elapsed();
      RequestOutcome outcome;
      if (e instanceof McpException m) {
        outcome = RequestOutcome.error(m.code(), m.getMessage(), d);
      } else if (e instanceof RequestTimeoutException) {
        outcome = new RequestOutcome(RequestOutcome.Status.TIMEOUT, 0, null, null, d);
      } else if (e instanceof RequestCancelledException) {
        outcome = new RequestOutcome(RequestOutcome.Status.CANCELLED, 0, null, null, d);
      } else {
        outcome = new RequestOutcome(RequestOutcome.Status.FAILED, 0, null,
            e.getClass().getName(), d);
      }
      end(outcome);
    }

    private Duration elapsed() {
      return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private void end(RequestOutcome outcome) {
      for (int i = observations.size() - 1; i >= 0; i--) {
        try {
          observations.get(i).end(outcome);
        } catch (RuntimeException e) {
          LOG.warn("a call observer failed at the end of {}", call.method(), e);
        }
      }
    }
  }
}
