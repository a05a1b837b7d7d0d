package dev.keel.agent.internal.tools;

import dev.keel.agent.internal.run.QueryFailedException;
import dev.keel.agent.internal.sql.QueryRefusedException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.ToolHandler;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool body whose refusals and failures become tool errors the model can read and act on
 * (MCP: errors of execution are results, not protocol errors). Their messages were written for
 * the peer already.
 */
@FunctionalInterface
interface Guarded {

  /** Runs the tool. */
  CallToolResult call(RequestContext ctx, ObjectNode args) throws Exception;

  /** Returns a handler that reports refusals and failures as tool errors. */
  static ToolHandler of(Guarded body) {
    return (ctx, args) -> {
      try {
        return body.call(ctx, args);
      } catch (QueryRefusedException e) {
        return CallToolResult.error("Refused: " + e.getMessage());
      } catch (QueryFailedException e) {
        return CallToolResult.error(e.getMessage());
      }
    };
  }
}
