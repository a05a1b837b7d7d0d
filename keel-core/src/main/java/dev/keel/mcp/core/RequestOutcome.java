package dev.keel.mcp.core;

import java.time.Duration;
import java.util.Objects;

/**
 * How one request ended, as an observer (metrics, tracing) is told: its status, the JSON-RPC
 * error code when the peer got one, and how long it took.
 *
 * <p>The same record describes an inbound request on a server and an outbound call on a
 * client, so a binding for Micrometer or OpenTelemetry reads both the same way.
 *
 * <pre>{@code
 * RequestObservation observation = outcome -> {
 *   if (outcome.status() != RequestOutcome.Status.OK) {
 *     log.info("{} after {} ms", outcome.errorType(), outcome.duration().toMillis());
 *   }
 * };
 * }</pre>
 *
 * @param status how it ended
 * @param errorCode the JSON-RPC error code of an {@link Status#ERROR}, else 0
 * @param message the error's message as the peer saw it (safe to record: Keel never puts
 *     internal details there), or null
 * @param failure the class name of the local exception of a {@link Status#FAILED} call, or null
 * @param duration from the start of the request to its answer
 */
public record RequestOutcome(Status status, int errorCode, String message, String failure,
    Duration duration) {

  /** How a request ended. */
  public enum Status {
    /** It has a result (for {@code tools/call}: one that is not a tool error). */
    OK,
    /** {@code tools/call} answered with a result whose {@code isError} is true. */
    TOOL_ERROR,
    /** Answered with a JSON-RPC error. */
    ERROR,
    /** Cancelled (by the client, a closed stream, a DELETE); no answer was sent. */
    CANCELLED,
    /** Client side: no answer came in time; the call was cancelled at the server. */
    TIMEOUT,
    /** Client side: the call failed locally (the connection, the transport, a bad answer). */
    FAILED
  }

  /** Checks the required parts. */
  public RequestOutcome {
    Objects.requireNonNull(status, "status");
    Objects.requireNonNull(duration, "duration");
  }

  /** A success. */
  public static RequestOutcome ok(Duration duration) {
    return new RequestOutcome(Status.OK, 0, null, null, duration);
  }

  /** A JSON-RPC error answer. */
  public static RequestOutcome error(int code, String message, Duration duration) {
    return new RequestOutcome(Status.ERROR, code, message, null, duration);
  }

  /** Returns true unless the status is {@link Status#OK}. */
  public boolean failed() {
    return status != Status.OK;
  }

  /**
   * Returns the low-cardinality error class the OpenTelemetry conventions for MCP call
   * {@code error.type}: the JSON-RPC code as text, {@code tool_error}, {@code cancelled},
   * {@code timeout}, or the exception's class name; null when the request succeeded.
   */
  public String errorType() {
    return switch (status) {
      case OK -> null;
      case TOOL_ERROR -> "tool_error";
      case ERROR -> Integer.toString(errorCode);
      case CANCELLED -> "cancelled";
      case TIMEOUT -> "timeout";
      case FAILED -> failure == null ? "_OTHER" : failure;
    };
  }
}
