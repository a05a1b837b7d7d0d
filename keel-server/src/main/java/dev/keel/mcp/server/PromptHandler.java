package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.GetPromptResult;
import java.util.Map;

/**
 * Renders a prompt. Required arguments were checked before it runs.
 */
@FunctionalInterface
public interface PromptHandler {

  /** Returns the prompt's messages for these arguments. */
  GetPromptResult get(RequestContext ctx, Map<String, String> arguments) throws Exception;
}
