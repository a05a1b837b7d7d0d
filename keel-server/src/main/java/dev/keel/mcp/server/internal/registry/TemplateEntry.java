package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.server.ResourceTemplateHandler;

/**
 * A registered resource template.
 *
 * @param template the template as listed
 * @param uriTemplate its parsed URI template
 * @param handler what reads matching resources
 * @param requiredScopes the OAuth scopes a caller needs to see it and read through it
 */
public record TemplateEntry(ResourceTemplate template, UriTemplate uriTemplate,
    ResourceTemplateHandler handler, java.util.Set<String> requiredScopes) {

  /** Copies the scopes; none means anyone may read through it. */
  public TemplateEntry {
    requiredScopes = Scopes.copyOf(requiredScopes);
  }
}
