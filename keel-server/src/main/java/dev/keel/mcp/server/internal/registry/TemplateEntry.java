package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.ResourceTemplateHandler;

/**
 * A registered resource template.
 *
 * @param template the template as listed
 * @param uriTemplate its parsed URI template
 * @param handler what reads matching resources
 */
public record TemplateEntry(ResourceTemplate template, UriTemplate uriTemplate,
    ResourceTemplateHandler handler) {}
