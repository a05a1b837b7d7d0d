package dev.keel.mcp.server;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * How the server runs one tool: its timeout, whether cancelling interrupts its thread, whether a
 * person must approve each call first, whether it runs as a task, and whether it is short enough
 * to run without a thread of its own.
 *
 * <pre>{@code
 * builder.tool(deleteRows, ToolOptions.defaults().withTimeout(Duration.ofSeconds(10))
 *     .withApproval(), handler);
 * }</pre>
 *
 * @param timeout how long a call may run before it is cancelled and answered with a tool error;
 *     null for the server's default (60 s)
 * @param interruptOnCancel whether cancellation also interrupts the handler's thread (a handler
 *     that cannot stand interrupts opts out and polls its token instead)
 * @param requiresApproval whether each call first asks the user through elicitation; anything
 *     but an explicit approval refuses the call, and the handler never runs
 * @param taskSupport whether calls run as tasks; null to take the tool's own
 *     {@code execution.taskSupport} ({@link TaskSupport#FORBIDDEN} when it has none)
 * @param taskOnDemand whether a task starts only when the handler calls
 *     {@link RequestContext#continueAsTask} (after asking the client what it needs in ordinary
 *     rounds), rather than before the handler runs
 * @param nonBlocking whether the handler never blocks, and so runs on the thread that received
 *     the request instead of being handed to a handler thread; see {@link #withNonBlocking()}
 * @param requiredScopes the OAuth scopes a caller's token must grant; see
 *     {@link #withRequiredScopes}
 */
public record ToolOptions(Duration timeout, boolean interruptOnCancel, boolean requiresApproval,
    TaskSupport taskSupport, boolean taskOnDemand, boolean nonBlocking,
    Set<String> requiredScopes) {

  /**
   * Checks the timeout, that a non-blocking tool never has to wait for the client, and that the
   * scopes are non-blank single tokens.
   */
  public ToolOptions {
    requiredScopes = dev.keel.mcp.server.internal.registry.Scopes.copyOf(requiredScopes);
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    if (nonBlocking && requiresApproval) {
      throw new IllegalArgumentException(
          "a non-blocking tool cannot require approval: approval waits for the user");
    }
    if (nonBlocking && (taskOnDemand || (taskSupport != null
        && taskSupport != TaskSupport.FORBIDDEN))) {
      throw new IllegalArgumentException(
          "a non-blocking tool cannot run as a task: a task runs on a thread of its own");
    }
  }

  /** Options without scope requirements. */
  public ToolOptions(Duration timeout, boolean interruptOnCancel, boolean requiresApproval,
      TaskSupport taskSupport, boolean taskOnDemand, boolean nonBlocking) {
    this(timeout, interruptOnCancel, requiresApproval, taskSupport, taskOnDemand, nonBlocking,
        Set.of());
  }

  /** Options with task settings, for a handler that may block. */
  public ToolOptions(Duration timeout, boolean interruptOnCancel, boolean requiresApproval,
      TaskSupport taskSupport, boolean taskOnDemand) {
    this(timeout, interruptOnCancel, requiresApproval, taskSupport, taskOnDemand, false);
  }

  /** Options without task settings (the tool's own {@code execution} decides). */
  public ToolOptions(Duration timeout, boolean interruptOnCancel, boolean requiresApproval) {
    this(timeout, interruptOnCancel, requiresApproval, null, false, false);
  }

  /** Returns the defaults: the server's timeout, interrupts on, no approval. */
  public static ToolOptions defaults() {
    return new ToolOptions(null, true, false);
  }

  /** Returns a copy with another timeout. */
  public ToolOptions withTimeout(Duration value) {
    return new ToolOptions(Objects.requireNonNull(value, "timeout"), interruptOnCancel,
        requiresApproval, taskSupport, taskOnDemand, nonBlocking, requiredScopes);
  }

  /** Returns a copy whose cancellation trips the token but never interrupts the thread. */
  public ToolOptions withoutInterrupt() {
    return new ToolOptions(timeout, false, requiresApproval, taskSupport, taskOnDemand,
        nonBlocking, requiredScopes);
  }

  /** Returns a copy that asks the user to approve every call. */
  public ToolOptions withApproval() {
    return new ToolOptions(timeout, interruptOnCancel, true, taskSupport, taskOnDemand,
        nonBlocking, requiredScopes);
  }

  /**
   * Returns a copy whose calls run as tasks when the client can take one
   * ({@link TaskSupport#OPTIONAL}) or always ({@link TaskSupport#REQUIRED}). The tool is listed
   * with this {@code execution.taskSupport}. A task runs its handler on a thread of its own; the
   * client polls it. The tool's timeout still applies when it set one; otherwise the task's ttl
   * bounds the run.
   */
  public ToolOptions withTaskSupport(TaskSupport value) {
    return new ToolOptions(timeout, interruptOnCancel, requiresApproval,
        Objects.requireNonNull(value, "taskSupport"), taskOnDemand, nonBlocking, requiredScopes);
  }

  /**
   * Returns a copy whose task starts only when the handler calls
   * {@link RequestContext#continueAsTask}: until then the call is an ordinary one, so the
   * handler can ask the client what it needs first (in the stateless era, in
   * {@code input_required} rounds before any task exists).
   */
  public ToolOptions withTaskOnDemand() {
    return new ToolOptions(timeout, interruptOnCancel, requiresApproval, taskSupport, true,
        nonBlocking, requiredScopes);
  }

  /**
   * Returns a copy for a handler that never blocks: it computes its answer from its arguments
   * and memory, without I/O, sleeps, locks held by slow code, or questions to the client. Such a
   * call runs on the thread that received the request (over HTTP, a container thread) instead
   * of being handed to a handler thread; on a short call that hand-off is most of the cost
   * (measured in docs/performance.md). Everything else is as for any tool: progress and logs
   * still stream, and cancellation trips its token, which the handler may poll, but never
   * interrupts the thread, which is not the handler's to interrupt. The timeout is checked when
   * the handler returns rather than by a timer: a call that ran past it is answered with the
   * timeout's tool error all the same, but its token does not trip while it runs.
   *
   * <p>A handler that does block while marked non-blocking holds a container thread for as
   * long, and enough of them stall the server: leave the default for anything that waits. With
   * {@code McpHttpServer}'s selector lane on, such a call runs on one of Jetty's selectors, and
   * a handler that blocks or computes for long there holds every connection of that selector:
   * turn the lane on only when every non-blocking tool returns in microseconds. In a
   * legacy session, elicitation, sampling, roots and approval wait for the client, so they
   * fail in a non-blocking tool; in the stateless era they are answered as
   * {@code input_required} without waiting, and work. Not combinable with approval or tasks.
   */
  public ToolOptions withNonBlocking() {
    return new ToolOptions(timeout, false, requiresApproval, taskSupport, taskOnDemand, true,
        requiredScopes);
  }

  /**
   * Returns a copy that only callers whose OAuth access token grants every one of
   * {@code scopes} may call (they are added to any required already). Over HTTP a call without
   * them is refused with 403 {@code insufficient_scope} naming every scope needed, before the
   * handler runs; {@code tools/list} does not show the tool to such a caller. Principals that
   * carry no scopes at all (API keys, local use) are not restricted.
   */
  public ToolOptions withRequiredScopes(String... scopes) {
    Set<String> all = new LinkedHashSet<>(requiredScopes);
    all.addAll(List.of(scopes));
    return new ToolOptions(timeout, interruptOnCancel, requiresApproval, taskSupport,
        taskOnDemand, nonBlocking, all);
  }
}
