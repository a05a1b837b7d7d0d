package dev.keel.mcp.server;

import java.time.Duration;
import java.util.Objects;

/**
 * How the server runs one tool: its timeout, whether cancelling interrupts its thread, and
 * whether a person must approve each call first.
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
 */
public record ToolOptions(Duration timeout, boolean interruptOnCancel, boolean requiresApproval) {

  /** Checks the timeout. */
  public ToolOptions {
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
  }

  /** Returns the defaults: the server's timeout, interrupts on, no approval. */
  public static ToolOptions defaults() {
    return new ToolOptions(null, true, false);
  }

  /** Returns a copy with another timeout. */
  public ToolOptions withTimeout(Duration value) {
    return new ToolOptions(Objects.requireNonNull(value, "timeout"), interruptOnCancel,
        requiresApproval);
  }

  /** Returns a copy whose cancellation trips the token but never interrupts the thread. */
  public ToolOptions withoutInterrupt() {
    return new ToolOptions(timeout, false, requiresApproval);
  }

  /** Returns a copy that asks the user to approve every call. */
  public ToolOptions withApproval() {
    return new ToolOptions(timeout, interruptOnCancel, true);
  }
}
