package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpJson;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * The values a client repeats, read into records once per distinct value: the {@code _meta}
 * objects a stateless client sends on every request ({@code clientCapabilities}, {@code
 * clientInfo}) and a legacy client's {@code initialize} params, sent on every connect; and the
 * server's own {@code serverInfo} written once. Binding them per request cost more than the rest
 * of a short stateless call's dispatch (benchmark profile).
 *
 * <p>Keys are private deep copies, so a caller changing its tree later cannot change what a key
 * means. The table is small and simply emptied when full: a server sees a handful of distinct
 * clients, and a peer that sends a new object every time only gets the uncached cost. Only small
 * values are kept ({@link #MAX_KEPT_WEIGHT}): a key is a copy of what a peer sent, and a table
 * of 256 messages of 4 MiB each would hold gigabytes for as long as the process lives.
 */
final class ParsedMeta {

  static final int MAX_ENTRIES = 256;

  /**
   * The largest value kept, counted as one per node plus the characters of its names and
   * strings: a real client's capabilities or info weigh a few hundred.
   */
  static final int MAX_KEPT_WEIGHT = 16 * 1024;

  private static final Map<CacheKey, Object> BOUND = new ConcurrentHashMap<>();
  private static volatile Object[] serverInfo = {null, null};

  private record CacheKey(Class<?> type, JsonNode value) {}

  private ParsedMeta() {}

  /** Returns {@code node} bound to {@code type}, from the table when seen before. */
  static <T> T bind(McpJson json, JsonNode node, Class<T> type) {
    if (!light(node)) {
      return json.fromTree(node, type);
    }
    CacheKey key = new CacheKey(type, node);
    Object cached = BOUND.get(key);
    if (cached != null) {
      return type.cast(cached);
    }
    T value = json.fromTree(node, type); // throws for a malformed value: never cached
    if (BOUND.size() >= MAX_ENTRIES) {
      BOUND.clear();
    }
    BOUND.put(new CacheKey(type, node.deepCopy()), value);
    return value;
  }

  /**
   * Returns {@code info} as a tree, shared between results: encoders only read it, and nothing
   * adds to a result's {@code serverInfo} after it is set.
   */
  static JsonNode serverInfo(McpJson json, Object info) {
    Object[] last = serverInfo;
    if (last[0] == info) {
      return (JsonNode) last[1];
    }
    JsonNode tree = json.toTree(info);
    serverInfo = new Object[] {info, tree};
    return tree;
  }

  /** Whether {@code node} weighs at most {@link #MAX_KEPT_WEIGHT}; stops counting past it. */
  static boolean light(JsonNode node) {
    int weight = 0;
    ArrayDeque<JsonNode> pending = new ArrayDeque<>();
    pending.push(node);
    while (!pending.isEmpty()) {
      JsonNode next = pending.pop();
      weight += 1;
      if (next.isString()) {
        weight += next.stringValue().length();
      } else if (next.isObject()) {
        for (Map.Entry<String, JsonNode> member : next.properties()) {
          weight += member.getKey().length() + 1;
          if (weight > MAX_KEPT_WEIGHT) {
            return false;
          }
          pending.push(member.getValue());
        }
      } else if (next.isArray()) {
        for (JsonNode element : next) {
          if (++weight > MAX_KEPT_WEIGHT) {
            return false;
          }
          pending.push(element);
        }
      }
      if (weight > MAX_KEPT_WEIGHT) {
        return false;
      }
    }
    return true;
  }

  static int size() {
    return BOUND.size();
  }
}
