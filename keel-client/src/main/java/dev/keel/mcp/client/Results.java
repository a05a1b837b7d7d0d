package dev.keel.mcp.client;

import dev.keel.mcp.core.McpJson;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/** Reading what a server answered into the client's types: nothing it sends is trusted. */
final class Results {

  private static final McpJson JSON = McpJson.standard();

  private Results() {}

  /**
   * Binds a result (or a member of one) to {@code type}.
   *
   * @throws InvalidServerResponseException when it is missing or malformed; the message names
   *     the method and the type, never the server's text
   */
  static <T> T parse(JsonNode node, Class<T> type, String what) {
    if (node == null || !node.isObject()) {
      throw new InvalidServerResponseException("the " + what + " result lacks a required "
          + "member (" + type.getSimpleName() + ")");
    }
    try {
      return JSON.fromTree(node, type);
    } catch (RuntimeException e) {
      throw new InvalidServerResponseException("the " + what + " result is malformed ("
          + type.getSimpleName() + ")", e);
    }
  }

  /** Returns the strings of a JSON array, skipping anything else; empty for a non-array. */
  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    if (array != null && array.isArray()) {
      for (JsonNode v : array) {
        if (v.isString()) {
          out.add(v.stringValue());
        }
      }
    }
    return out;
  }

  /** Returns a string member, or null when absent or not a string. */
  static String text(JsonNode node, String field) {
    JsonNode v = node == null ? null : node.get(field);
    return v != null && v.isString() ? v.stringValue() : null;
  }
}
