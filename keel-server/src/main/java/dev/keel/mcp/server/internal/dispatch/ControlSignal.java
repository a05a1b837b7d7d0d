package dev.keel.mcp.server.internal.dispatch;

/**
 * Leaves a handler for an outcome the engine completes on its behalf: the stateless era's
 * "needs input" ({@code input_required}) and "continue as a task". It is an unchecked exception
 * with no stack trace, not an {@link Error}: catching errors to see it would also catch
 * {@code OutOfMemoryError} and {@code StackOverflowError}.
 *
 * <p>A handler's {@code catch (Exception e)} may still swallow it, so it is never the only
 * record: the request's context remembers the signal it raised ({@code RealRequestContext}),
 * raises it again at the handler's next question to the client, and the engine takes the
 * recorded outcome whatever the handler did afterwards (returned, threw something else).
 */
public abstract class ControlSignal extends RuntimeException {

  private static final long serialVersionUID = 1L;

  protected ControlSignal(String what) {
    super(what, null, false, false);
  }
}
