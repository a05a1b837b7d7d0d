package dev.keel.mcp.server.internal.dispatch;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** Serves one JSON-RPC method: params in, result out. */
@FunctionalInterface
interface MethodHandler {

  /**
   * Returns the result.
   *
   * @param params the params, never null ({@code {}} when absent)
   */
  JsonNode handle(RealRequestContext ctx, ObjectNode params) throws Exception;
}
