package dev.keel.mcp.core.schema;

import java.util.List;
import java.util.Objects;

/**
 * The name and version of an MCP client or server.
 *
 * @param name the programmatic name
 * @param title a display name, or null
 * @param version the version
 * @param description a description, or null
 * @param websiteUrl a home page, or null
 * @param icons icons, or null
 */
public record Implementation(String name, String title, String version, String description,
    String websiteUrl, List<Icon> icons) {

  /** Checks the required members. */
  public Implementation {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(version, "version");
    icons = icons == null ? null : List.copyOf(icons);
  }

  /** Returns an implementation with just a name and a version. */
  public static Implementation of(String name, String version) {
    return new Implementation(name, null, version, null, null, null);
  }
}
