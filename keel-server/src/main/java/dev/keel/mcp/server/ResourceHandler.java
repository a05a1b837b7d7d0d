package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.ReadResourceResult;

/** Reads a resource registered under a fixed URI. */
@FunctionalInterface
public interface ResourceHandler {

  /** Returns the contents of the resource at {@code uri}. */
  ReadResourceResult read(RequestContext ctx, String uri) throws Exception;
}
