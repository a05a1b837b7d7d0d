package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.CompleteRequest;
import dev.keel.mcp.core.schema.Completion;

/** Suggests values for an argument of a prompt or resource template. */
@FunctionalInterface
public interface CompletionHandler {

  /** Returns suggestions (at most 100 are sent). */
  Completion complete(RequestContext ctx, CompleteRequest request) throws Exception;
}
