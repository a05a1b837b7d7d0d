package dev.keel.mcp.server.internal.mrtr;

import tools.jackson.databind.node.ObjectNode;

/**
 * Ends a modern-era attempt that needs input from the client: the dispatcher turns it into an
 * {@code input_required} result.
 *
 * <p>It is an {@link Error}, not an exception, on purpose: it is control flow, and a handler's
 * ordinary {@code catch (Exception e)} around {@code ctx.elicit} must not swallow it.
 */
public final class InputRequiredSignal extends Error {

  private static final long serialVersionUID = 1L;

  private final transient ObjectNode inputRequests;

  /** Creates the signal for these input requests, by key. */
  public InputRequiredSignal(ObjectNode inputRequests) {
    super("input required", null, false, false);
    this.inputRequests = inputRequests;
  }

  /** Returns the input requests, by key. */
  public ObjectNode inputRequests() {
    return inputRequests;
  }
}
