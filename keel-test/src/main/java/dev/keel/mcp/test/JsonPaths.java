package dev.keel.mcp.test;

import tools.jackson.core.JsonPointer;
import tools.jackson.databind.JsonNode;

/**
 * The paths the assertions read structured content with: a JSON Pointer ({@code /rows/0/name})
 * or the common dotted form ({@code $.rows[0].name}, {@code rows[0].name}).
 */
final class JsonPaths {

  private JsonPaths() {}

  /** Returns the node at {@code path}, or a missing node. */
  static JsonNode at(JsonNode root, String path) {
    return root.at(JsonPointer.compile(pointer(path)));
  }

  /** Turns a dotted path into a JSON Pointer; a pointer is returned as it is. */
  static String pointer(String path) {
    if (path.isEmpty() || path.equals("$")) {
      return "";
    }
    if (path.startsWith("/")) {
      return path;
    }
    String p = path.startsWith("$.") ? path.substring(2) : path.startsWith("$") ? path.substring(1)
        : path;
    StringBuilder out = new StringBuilder();
    StringBuilder name = new StringBuilder();
    for (int i = 0; i < p.length(); i++) {
      char c = p.charAt(i);
      if (c == '.' || c == '[') {
        flush(out, name);
        if (c == '[') {
          int end = p.indexOf(']', i);
          if (end < 0) {
            throw new IllegalArgumentException("unclosed [ in path " + path);
          }
          String index = p.substring(i + 1, end);
          if (index.startsWith("'") || index.startsWith("\"")) {
            index = index.substring(1, index.length() - 1);
          }
          out.append('/').append(escape(index));
          i = end;
        }
      } else {
        name.append(c);
      }
    }
    flush(out, name);
    return out.toString();
  }

  private static void flush(StringBuilder out, StringBuilder name) {
    if (name.length() > 0) {
      out.append('/').append(escape(name.toString()));
      name.setLength(0);
    }
  }

  private static String escape(String token) {
    return token.replace("~", "~0").replace("/", "~1");
  }
}
