package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.server.ResourceHandler;

/**
 * A registered resource.
 *
 * @param resource the resource as listed
 * @param handler what reads it
 * @param requiredScopes the OAuth scopes a caller needs to see and read it
 */
public record ResourceEntry(Resource resource, ResourceHandler handler,
    java.util.Set<String> requiredScopes) {

  /** Copies the scopes; none means anyone may read it. */
  public ResourceEntry {
    requiredScopes = Scopes.copyOf(requiredScopes);
  }

  /** A resource anyone may read. */
  public ResourceEntry(Resource resource, ResourceHandler handler) {
    this(resource, handler, java.util.Set.of());
  }
}
