package dev.keel.agent.internal.sql;

/**
 * Judges the functions a statement calls by what the engine knows of them, beyond the check's
 * own deny list (which always applies first). On PostgreSQL this is the functions' declared
 * volatility; engines without such a catalog allow everything the deny list lets through.
 */
@FunctionalInterface
public interface FunctionJudge {

  /** The judge of engines whose catalog says nothing about what a function does. */
  FunctionJudge ALLOW_ALL = (schema, name) -> null;

  /**
   * Returns why a call of a function may not run, or null when it may.
   *
   * @param schema the schema the call names ({@code s.f(...)}), as written and folded by the
   *     lexer, or null when the call is unqualified
   * @param name the function's name as the engine stores it (unquoted names folded)
   */
  String refusal(String schema, String name);

  /**
   * Returns why an operator may not be used, or null when it may (operators run functions
   * too, and a user-defined one may run a VOLATILE function).
   *
   * @param schema the schema named in {@code OPERATOR(schema.op)}, or null
   * @param operator the operator's symbol
   */
  default String operatorRefusal(String schema, String operator) {
    return null;
  }
}
