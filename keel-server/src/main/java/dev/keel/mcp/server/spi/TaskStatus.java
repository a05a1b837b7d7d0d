package dev.keel.mcp.server.spi;

import java.util.Locale;

/**
 * Where a task is in its life. A task starts {@link #WORKING}; it may move to
 * {@link #INPUT_REQUIRED} and back any number of times; {@link #COMPLETED}, {@link #FAILED} and
 * {@link #CANCELLED} are terminal and never change.
 */
public enum TaskStatus {
  /** The request is being processed. */
  WORKING,
  /** The handler waits for the client's answers. */
  INPUT_REQUIRED,
  /** The request finished with a result. */
  COMPLETED,
  /** The request finished with a JSON-RPC error (legacy era: also a tool error). */
  FAILED,
  /** The request was cancelled before it finished. */
  CANCELLED;

  /** Returns the name on the wire ({@code "input_required"}). */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Returns true for a status that never changes again. */
  public boolean terminal() {
    return this == COMPLETED || this == FAILED || this == CANCELLED;
  }
}
