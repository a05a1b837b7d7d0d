package dev.keel.mcp.server.internal.schema;

import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Applies the {@code default}s of a generated schema to the arguments a peer sent: a property
 * that is absent (or null) gets its default, at every level of nesting, before the arguments are
 * bound. The schema advertises exactly the defaults that are applied.
 */
final class Defaults {

  private Defaults() {}

  /**
   * Returns {@code value} with the defaults of {@code schema} filled in: the same object when
   * nothing was missing, a copy otherwise (the peer's tree is never changed).
   */
  static JsonNode fill(ObjectNode schema, JsonNode value) {
    JsonNode properties = schema.get("properties");
    if (!(value instanceof ObjectNode object) || !(properties instanceof ObjectNode declared)) {
      return value;
    }
    ObjectNode result = object;
    for (Map.Entry<String, JsonNode> p : declared.properties()) {
      JsonNode given = object.get(p.getKey());
      JsonNode filled;
      if (given == null || given.isNull()) {
        filled = p.getValue().get("default");
      } else {
        filled = p.getValue() instanceof ObjectNode child ? fill(child, given) : given;
      }
      if (filled != null && filled != given) {
        if (result == object) {
          result = object.deepCopy();
        }
        result.set(p.getKey(), filled.deepCopy());
      }
    }
    return result;
  }
}
