package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.ReadResourceResult;
import java.util.Map;

/**
 * Reads a resource whose URI matched a template. The variables are percent-decoded; they come
 * from the peer and must be validated like any input.
 */
@FunctionalInterface
public interface ResourceTemplateHandler {

  /**
   * Returns the contents of the resource at {@code uri}.
   *
   * @throws dev.keel.mcp.core.McpException such as {@link McpErrors#resourceNotFound} when the
   *     variables name nothing
   */
  ReadResourceResult read(RequestContext ctx, String uri, Map<String, String> variables)
      throws Exception;
}
