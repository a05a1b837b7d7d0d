package dev.keel.agent.internal.sql;

/**
 * A statement the agent will not run. Its message is written for the peer: it names what is
 * wrong with the statement and never a table or column the caller may not see.
 */
public final class QueryRefusedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** The one answer for a table that does not exist and one the caller may not see. */
  public static final String TABLE_NOT_FOUND = "A table in the query was not found or is not "
      + "allowed";

  /** Creates a refusal with a peer-safe message. */
  public QueryRefusedException(String message) {
    super(message, null, false, false);
  }
}
