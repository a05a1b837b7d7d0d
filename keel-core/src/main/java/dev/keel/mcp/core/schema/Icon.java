package dev.keel.mcp.core.schema;

import java.util.List;
import java.util.Objects;

/**
 * An icon for a tool, resource, prompt or implementation (SEP-973). Its source must be an
 * {@code https:} or {@code data:} URI.
 *
 * @param src the icon URI
 * @param mimeType its media type, or null
 * @param sizes sizes such as {@code "48x48"}, or null
 * @param theme {@code "light"} or {@code "dark"}, or null
 */
public record Icon(String src, String mimeType, List<String> sizes, String theme) {

  /** Checks the source and copies the sizes. */
  public Icon {
    Objects.requireNonNull(src, "src");
    sizes = sizes == null ? null : List.copyOf(sizes);
  }
}
