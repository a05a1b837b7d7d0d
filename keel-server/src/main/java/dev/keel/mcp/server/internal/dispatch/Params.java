package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.McpException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Typed reads of peer-supplied params that the handlers take by hand rather than through data
 * binding. Each checks the JSON type before it converts: Jackson 3's own accessors
 * ({@code asString()}, {@code longValue()}) throw on a wrong type, and an exception nobody
 * expected becomes {@code -32603} with a stack trace in the log, where a malformed parameter
 * must be {@code -32602} naming the field (issue 14, finding 12).
 */
final class Params {

  private Params() {}

  /** Returns the string at {@code field}, or fails with -32602 when it is missing or not one. */
  static String requiredString(ObjectNode params, String field) {
    JsonNode value = params == null ? null : params.get(field);
    if (value == null || !value.isString()) {
      throw McpException.invalidParams("Invalid params: " + field + " must be a string");
    }
    return value.stringValue();
  }

  /** Returns the string at {@code field}, null when absent or null, or fails with -32602. */
  static String optionalString(ObjectNode params, String field) {
    JsonNode value = params == null ? null : params.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isString()) {
      throw McpException.invalidParams("Invalid params: " + field + " must be a string");
    }
    return value.stringValue();
  }

  /** Returns the object at {@code field}, null when absent or null, or fails with -32602. */
  static ObjectNode optionalObject(ObjectNode params, String field) {
    JsonNode value = params == null ? null : params.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (value instanceof ObjectNode object) {
      return object;
    }
    throw McpException.invalidParams("Invalid params: " + field + " must be an object");
  }

  /** Returns the object at {@code field}, or fails with -32602 when it is missing or not one. */
  static ObjectNode requiredObject(ObjectNode params, String field) {
    ObjectNode value = optionalObject(params, field);
    if (value == null) {
      throw McpException.invalidParams("Invalid params: " + field + " must be an object");
    }
    return value;
  }

  /**
   * Returns the integer at {@code field} of {@code node}, null when absent or null, or fails with
   * -32602 naming {@code name} when it is not an integer that fits in a long.
   */
  static Long optionalLong(JsonNode node, String field, String name) {
    JsonNode value = node == null ? null : node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw McpException.invalidParams("Invalid params: " + name + " must be an integer");
    }
    return value.longValue();
  }
}
