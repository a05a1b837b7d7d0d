package dev.keel.mcp.server;

/**
 * What an operator watches on a running server. Values are read live; reading is cheap and
 * never blocks. keel-micrometer's {@code KeelMetrics} registers every one of them as a gauge
 * or a function counter; the per-request timers come from a {@link RequestObserver}.
 *
 * <pre>{@code
 * ServerMetrics m = server.metrics();
 * log.info("sessions={} in-flight={} streams={}", m.sessions(), m.inFlightRequests(),
 *     m.listeningStreams());
 * }</pre>
 */
public interface ServerMetrics {

  /** Returns the number of live legacy sessions. */
  int sessions();

  /** Returns the number of requests whose handlers are running. */
  int inFlightRequests();

  /** Returns the number of sessions with a listening stream attached. */
  int listeningStreams();

  /** Returns how many session ids are bound to an owner (sessions and notification channels). */
  int ownerBindings();

  /** Returns how many requests were cancelled (by the client, a timeout, a disconnect, a DELETE). */
  long cancellations();

  /** Returns how many sessions were evicted for idleness. */
  long evictions();

  /** Returns how many new sessions were refused because a limit was reached. */
  long refusedSessions();

  /** Returns how many requests were refused because the in-flight limit was reached. */
  long refusedRequests();

  /** Returns how many tasks run now (both eras). */
  int runningTasks();

  /** Returns how many tasks were created since the server started. */
  long tasksCreated();
}
