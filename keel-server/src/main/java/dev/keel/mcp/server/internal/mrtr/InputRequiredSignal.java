package dev.keel.mcp.server.internal.mrtr;

import dev.keel.mcp.server.internal.dispatch.ControlSignal;
import tools.jackson.databind.node.ObjectNode;

/**
 * Ends a modern-era attempt that needs input from the client: the dispatcher turns it into an
 * {@code input_required} result (see {@link ControlSignal} for why it cannot be swallowed).
 */
public final class InputRequiredSignal extends ControlSignal {

  private static final long serialVersionUID = 1L;

  private final transient ObjectNode inputRequests;

  /** Creates the signal for these input requests, by key. */
  public InputRequiredSignal(ObjectNode inputRequests) {
    super("input required");
    this.inputRequests = inputRequests;
  }

  /** Returns the input requests, by key. */
  public ObjectNode inputRequests() {
    return inputRequests;
  }
}
