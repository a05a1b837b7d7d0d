package dev.keel.mcp.core.jsonrpc;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * The id of a JSON-RPC request: a string or an integer, never null.
 *
 * <p>Two ids are equal only when they have the same kind and value, so the string {@code "1"} and
 * the number {@code 1} name different requests, as JSON-RPC requires.
 *
 * @param value a {@link String} or a {@link Long}
 */
public record RequestId(Object value) {

  /** Checks that the value is a string or a long. */
  public RequestId {
    Objects.requireNonNull(value, "value");
    if (!(value instanceof String) && !(value instanceof Long)) {
      throw new IllegalArgumentException("request id must be a String or a Long, not "
          + value.getClass().getSimpleName());
    }
  }

  /** Returns a numeric id. */
  public static RequestId of(long value) {
    return new RequestId(value);
  }

  /** Returns a string id. */
  public static RequestId of(String value) {
    return new RequestId(value);
  }

  /**
   * Reads an id from JSON: a string or an integer that fits a long.
   *
   * @return the id, or null when the node is missing or is any other kind of value
   */
  public static RequestId fromJson(JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isString()) {
      return of(node.stringValue());
    }
    if (node.isIntegralNumber() && node.canConvertToLong()) {
      return of(node.longValue());
    }
    return null;
  }

  /** Returns true when the id is a number. */
  public boolean isNumber() {
    return value instanceof Long;
  }

  @Override
  public String toString() {
    return value instanceof String s ? '"' + s + '"' : value.toString();
  }
}
