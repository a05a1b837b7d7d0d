package dev.keel.mcp.core.schema;

import java.util.List;

/**
 * Hints to the client about how to use a content block or resource.
 *
 * @param audience who the content is for, or null
 * @param priority importance from 0 to 1, or null
 * @param lastModified an ISO 8601 timestamp, or null
 */
public record Annotations(List<Role> audience, Double priority, String lastModified) {

  /** Checks the priority range and copies the audience. */
  public Annotations {
    if (priority != null && (priority < 0 || priority > 1)) {
      throw new IllegalArgumentException("priority must be between 0 and 1: " + priority);
    }
    audience = audience == null ? null : List.copyOf(audience);
  }
}
