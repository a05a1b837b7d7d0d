package dev.keel.agent.internal.sql;

/**
 * Thrown when a statement nests deeper than the check follows. It is a malformed argument, not
 * a refusal of what the statement does, so tools answer it as invalid params (-32602).
 */
public final class StatementTooDeepException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The one message, naming the limit's reason. */
  public static final String MESSAGE = "The statement is nested too deep to check (parentheses, "
      + "NOT, CASE or operator chains); simplify it";

  /** Creates the exception. */
  public StatementTooDeepException() {
    super(MESSAGE, null, false, false);
  }
}
