package dev.keel.mcp.server;

import java.util.List;
import java.util.Map;

/**
 * What an operator of a running server sees and may do: live snapshots of its sessions,
 * in-flight requests, tasks and subscriptions, errors by JSON-RPC code, a rolling history of
 * calls and latencies, and two actions that stop work.
 *
 * <pre>{@code
 * ServerOperations ops = server.operations();
 * for (ServerOperations.Request r : ops.requests()) {
 *   if (r.elapsedMillis() > 60_000) {
 *     ops.cancelRequest(r.handle(), "alice");
 *   }
 * }
 * }</pre>
 *
 * <p>Every method is thread-safe and returns a fresh snapshot; none waits on a handler, and only
 * {@link #tasks()} and {@link #cancelTask} read the task store (a network call when the store is
 * shared, as on Redis). No snapshot
 * names a session id: sessions appear only by a short hash of their id, which opens nothing.
 * A cancel goes through the path a client's own cancel takes ({@code notifications/cancelled}
 * in a legacy session, the closed stream in the stateless era, {@code tasks/cancel} for a
 * task): the handler's token fires and its thread is interrupted. Unlike a client's cancel,
 * which is answered with nothing, a request an operator cancels is answered with the error
 * {@link dev.keel.mcp.core.ErrorCodes#REQUEST_CANCELLED}, so the waiting client learns of it.
 */
public interface ServerOperations {

  /** Returns the live legacy sessions, oldest first. */
  List<Session> sessions();

  /** Returns the requests whose handlers run now, oldest first. */
  List<Request> requests();

  /** Returns the tasks created lately (running and ended, while the store keeps them). */
  List<Task> tasks();

  /** Returns the open subscriptions, counted per session or listening stream. */
  List<Subscription> subscriptions();

  /** Returns how many error answers the server sent since it started, by JSON-RPC code. */
  Map<Integer, Long> errorsByCode();

  /** Returns one sample per second over the last five minutes, oldest first. */
  List<Sample> samples();

  /**
   * Cancels an in-flight request as its client's own cancel would, and logs who did.
   *
   * @param handle the request's {@link Request#handle()}
   * @param operator the name of the operator, for the log
   * @return true when a running request was cancelled by this call
   */
  boolean cancelRequest(String handle, String operator);

  /**
   * Cancels a task as {@code tasks/cancel} would, and logs who did.
   *
   * @param taskId the task's id
   * @param operator the name of the operator, for the log
   * @return true when the task was still running and is now cancelled
   */
  boolean cancelTask(String taskId, String operator);

  /**
   * One legacy session.
   *
   * @param fingerprint a short hash of the session id (the id itself is a credential)
   * @param owner the fingerprint of the principal that owns it
   * @param era the protocol revision it negotiated
   * @param ageMillis how long ago it was created
   * @param idleMillis how long ago it was last active
   * @param openStreams its open streams: the listening stream and each running request's
   * @param subscriptions how many resources it is subscribed to
   */
  record Session(String fingerprint, String owner, String era, long ageMillis,
      long idleMillis, int openStreams, int subscriptions) {}

  /**
   * One in-flight request.
   *
   * @param handle an opaque handle to cancel it with; it means nothing outside this server
   * @param method the JSON-RPC method
   * @param tool the tool a {@code tools/call} names, or null
   * @param elapsedMillis how long its handler has run
   * @param principal the name of the principal it runs as
   * @param era {@code legacy} or {@code modern}
   * @param session the fingerprint of its session, or null when sessionless
   */
  record Request(String handle, String method, String tool, long elapsedMillis,
      String principal, String era, String session) {}

  /**
   * One task.
   *
   * @param taskId its id
   * @param status its status, as the protocol names it ({@code working}, {@code cancelled}, …)
   * @param owner the name of the principal that created it
   * @param tool the tool it runs
   * @param createdAtMillis when it was created, in milliseconds since the epoch
   * @param elapsedMillis how long it ran, or has run so far
   */
  record Task(String taskId, String status, String owner, String tool, long createdAtMillis,
      long elapsedMillis) {}

  /**
   * The subscriptions of one session or listening stream.
   *
   * @param scope a session fingerprint, or {@code listen:} and the owner's fingerprint
   * @param count how many resources or lists it watches
   */
  record Subscription(String scope, int count) {}

  /**
   * One second of traffic.
   *
   * @param epochSecond the second
   * @param calls requests that ended in it
   * @param errors of those, the ones answered with an error
   * @param p50Micros the median latency, in microseconds
   * @param p95Micros the 95th percentile latency, in microseconds
   * @param p99Micros the 99th percentile latency, in microseconds
   * @param inFlight requests running at the end of the second
   */
  record Sample(long epochSecond, long calls, long errors, long p50Micros, long p95Micros,
      long p99Micros, int inFlight) {}
}
