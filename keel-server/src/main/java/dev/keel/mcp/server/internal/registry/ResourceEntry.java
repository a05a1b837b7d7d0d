package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.server.ResourceHandler;

/**
 * A registered resource.
 *
 * @param resource the resource as listed
 * @param handler what reads it
 */
public record ResourceEntry(Resource resource, ResourceHandler handler) {}
