package dev.keel.mcp.client;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Sends one request in the connection's era and returns its raw result. */
@FunctionalInterface
interface Caller {

  /**
   * Sends {@code method}; blocks until the answer, the timeout or an interrupt.
   *
   * @param options the call's timeout and progress listener, or null for the defaults
   */
  JsonNode call(String method, ObjectNode params, CallOptions options);
}
