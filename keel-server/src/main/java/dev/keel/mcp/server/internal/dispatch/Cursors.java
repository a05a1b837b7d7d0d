package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Opaque pagination cursors. A cursor encodes the offset of the next page; the client must not
 * parse it, and a cursor that does not decode is {@code -32602}.
 */
final class Cursors {

  private static final String PREFIX = "keel1:";

  private Cursors() {}

  /**
   * One page.
   *
   * @param items the items of this page
   * @param nextCursor the cursor of the next, or null on the last page
   */
  record Page<T>(List<T> items, String nextCursor) {}

  /** Returns the {@code cursor} param, or null for the first page. */
  static String cursorOf(ObjectNode params) {
    JsonNode cursor = params.get("cursor");
    if (cursor == null || cursor.isNull()) {
      return null;
    }
    if (!cursor.isString()) {
      throw McpException.invalidParams("Invalid cursor");
    }
    return cursor.stringValue();
  }

  static <T> Page<T> page(List<T> all, String cursor, int pageSize) {
    int from = cursor == null ? 0 : decode(cursor);
    if (from > all.size()) {
      throw McpException.invalidParams("Invalid cursor");
    }
    int to = Math.min(all.size(), from + pageSize);
    String next = to < all.size() ? encode(to) : null;
    return new Page<>(all.subList(from, to), next);
  }

  static String encode(int offset) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((PREFIX + offset).getBytes(StandardCharsets.UTF_8));
  }

  static int decode(String cursor) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (!text.startsWith(PREFIX)) {
        throw McpException.invalidParams("Invalid cursor");
      }
      int offset = Integer.parseInt(text.substring(PREFIX.length()));
      if (offset < 0) {
        throw McpException.invalidParams("Invalid cursor");
      }
      return offset;
    } catch (IllegalArgumentException e) {
      throw McpException.invalidParams("Invalid cursor");
    }
  }
}
