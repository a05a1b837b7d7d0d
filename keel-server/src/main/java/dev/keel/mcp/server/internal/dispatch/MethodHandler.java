package dev.keel.mcp.server.internal.dispatch;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Serves one JSON-RPC method: params in, result out. */
@FunctionalInterface
interface MethodHandler {

  /**
   * Returned by a handler whose request stays open after it returns (a subscription): the
   * dispatcher sends no response now; the stream carries the rest.
   */
  JsonNode HELD = tools.jackson.databind.node.JsonNodeFactory.instance.objectNode();

  /**
   * Returns the result.
   *
   * @param params the params, never null ({@code {}} when absent)
   */
  JsonNode handle(RealRequestContext ctx, ObjectNode params) throws Exception;
}
