package dev.keel.mcp.client;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.Text;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Following a paginated list, guarded against a server that never stops: a repeated cursor or
 * more than {@code maxPages} pages fails the list instead of looping, and one malformed entry
 * costs that entry, not the list.
 */
final class Pages {

  private static final Logger LOG = LoggerFactory.getLogger(Pages.class);

  private Pages() {}

  /** Returns every entry of {@code member} over all pages of {@code method}. */
  static <T> List<T> all(Caller caller, String method, String member, Class<T> type,
      int maxPages) {
    List<T> all = new ArrayList<>();
    Set<String> cursors = new HashSet<>();
    String cursor = null;
    for (int page = 0; page < maxPages; page++) {
      ObjectNode params = McpJson.object();
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      JsonNode result = caller.call(method, params, null);
      JsonNode items = result.get(member);
      if (items != null && !items.isNull()) {
        if (!items.isArray()) {
          throw new InvalidServerResponseException("the " + method + " result's " + member
              + " is not an array");
        }
        for (JsonNode item : items) {
          try {
            all.add(Results.parse(item, type, method));
          } catch (InvalidServerResponseException e) {
            // A tool name out of the allowed set, a missing member: the entry is left out.
            LOG.warn("left out an entry of {} the client cannot use: {}", method,
                Text.safe(String.valueOf(e.getCause() != null ? e.getCause().getMessage()
                    : e.getMessage())));
          }
        }
      }
      JsonNode next = result.get("nextCursor");
      if (next == null || next.isNull()) {
        return all;
      }
      if (!next.isString() || !cursors.add(next.stringValue())) {
        throw new InvalidServerResponseException("the server repeated a pagination cursor of "
            + method + "; stopped after " + (page + 1) + " pages");
      }
      cursor = next.stringValue();
    }
    throw new InvalidServerResponseException(method + " returned more than " + maxPages
        + " pages; stopped");
  }
}
