package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.CallToolResult;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs a tool. A plain blocking method: it returns when the work is done.
 *
 * <p>The arguments were already validated against the tool's input schema. A failure the model
 * should see is a result made with {@link CallToolResult#error(String)}; a thrown
 * {@link dev.keel.mcp.core.McpException} becomes a JSON-RPC error with its code; any other
 * exception becomes a tool error whose text says only that the tool failed (details go to the
 * server log).
 */
@FunctionalInterface
public interface ToolHandler {

  /** Runs the tool with its arguments (never null; {@code {}} when none were sent). */
  CallToolResult call(RequestContext ctx, ObjectNode arguments) throws Exception;
}
