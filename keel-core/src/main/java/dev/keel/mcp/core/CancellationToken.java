package dev.keel.mcp.core;

/**
 * Tells a running handler, or a caller waiting on a peer, that its request was cancelled.
 *
 * <p>Cancellation reaches a handler twice: as this token, which it may poll, and as an interrupt
 * of its thread (unless the handler opted out), so blocking I/O stops too. A token is tripped at
 * most once; the first reason wins.
 *
 * <pre>{@code
 * for (Row row : rows) {
 *   ctx.cancellation().throwIfCancelled();
 *   process(row);
 * }
 * }</pre>
 */
public interface CancellationToken {

  /** Returns true once the request was cancelled. */
  boolean isCancelled();

  /** Returns the reason given by the first cancellation, or null while not cancelled. */
  String reason();

  /**
   * Runs {@code action} when the token is tripped, at once if it already is. The action runs on
   * the cancelling thread and must be quick and never throw.
   *
   * @return a handle whose {@code close()} removes the action
   */
  Registration onCancel(Runnable action);

  /**
   * Throws {@link RequestCancelledException} when the request was cancelled.
   */
  default void throwIfCancelled() {
    if (isCancelled()) {
      throw new RequestCancelledException(reason());
    }
  }

  /** An action registered with {@link #onCancel}; closing it removes the action. */
  interface Registration extends AutoCloseable {
    /** Removes the action; does nothing when it already ran or was removed. */
    @Override
    void close();
  }

  /** Returns a token that is never cancelled. */
  static CancellationToken none() {
    return NeverCancelled.INSTANCE;
  }
}
