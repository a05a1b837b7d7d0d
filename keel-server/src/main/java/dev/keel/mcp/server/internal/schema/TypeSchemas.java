package dev.keel.mcp.server.internal.schema;

import dev.keel.mcp.server.ToolParam;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates JSON Schema 2020-12 for the Java types an annotated tool may take or return.
 */
public final class TypeSchemas {

  private static final int MAX_DEPTH = 8;

  private TypeSchemas() {}

  /**
   * Returns the schema of a type.
   *
   * @throws IllegalArgumentException for a type with no JSON form Keel knows, or nesting deeper
   *     than 8 (which also stops recursive records)
   */
  public static ObjectNode of(Type type) {
    return of(type, 0);
  }

  /** Returns true when the type is {@code Optional<…>} (an argument that may be left out). */
  public static boolean isOptional(Type type) {
    return raw(type) == Optional.class;
  }

  private static ObjectNode of(Type type, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("type nests too deeply for a schema: " + type);
    }
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    Class<?> raw = raw(type);
    if (raw == String.class || raw == char.class || raw == Character.class) {
      schema.put("type", "string");
    } else if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class
        || raw == short.class || raw == Short.class || raw == byte.class || raw == Byte.class
        || raw == BigInteger.class) {
      schema.put("type", "integer");
    } else if (raw == double.class || raw == Double.class || raw == float.class
        || raw == Float.class || raw == BigDecimal.class) {
      schema.put("type", "number");
    } else if (raw == boolean.class || raw == Boolean.class) {
      schema.put("type", "boolean");
    } else if (raw.isEnum()) {
      schema.put("type", "string");
      ArrayNode values = schema.putArray("enum");
      for (Object constant : raw.getEnumConstants()) {
        values.add(((Enum<?>) constant).name());
      }
    } else if (raw == Optional.class) {
      return of(typeArgument(type, 0), depth);
    } else if (raw.isArray() || Collection.class.isAssignableFrom(raw)) {
      schema.put("type", "array");
      Type element = raw.isArray() ? componentType(type) : typeArgument(type, 0);
      schema.set("items", of(element, depth + 1));
    } else if (Map.class.isAssignableFrom(raw)) {
      if (raw(typeArgument(type, 0)) != String.class) {
        throw new IllegalArgumentException("map keys must be strings: " + type);
      }
      schema.put("type", "object");
      schema.set("additionalProperties", of(typeArgument(type, 1), depth + 1));
    } else if (raw.isRecord()) {
      return recordSchema(raw, depth);
    } else if (ObjectNode.class.isAssignableFrom(raw)) {
      schema.put("type", "object");
    } else if (JsonNode.class.isAssignableFrom(raw)) {
      return schema;
    } else {
      throw new IllegalArgumentException("no JSON Schema for type " + type.getTypeName()
          + " (use String, numbers, boolean, enums, lists, maps or records)");
    }
    return schema;
  }

  private static ObjectNode recordSchema(Class<?> record, int depth) {
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    ArrayNode required = JsonNodeFactory.instance.arrayNode();
    for (RecordComponent component : record.getRecordComponents()) {
      ToolParam param = component.getAnnotation(ToolParam.class);
      String name = param != null && !param.name().isEmpty() ? param.name() : component.getName();
      ObjectNode property = of(component.getGenericType(), depth + 1);
      if (param != null && !param.description().isEmpty()) {
        property.put("description", param.description());
      }
      properties.set(name, property);
      boolean optional = isOptional(component.getGenericType())
          || (param != null && !param.required() && !component.getType().isPrimitive());
      if (!optional) {
        required.add(name);
      }
    }
    if (!required.isEmpty()) {
      schema.set("required", required);
    }
    schema.put("additionalProperties", false);
    return schema;
  }

  static Class<?> raw(Type type) {
    if (type instanceof Class<?> c) {
      return c;
    }
    if (type instanceof ParameterizedType p) {
      return (Class<?>) p.getRawType();
    }
    if (type instanceof GenericArrayType) {
      return Object[].class;
    }
    throw new IllegalArgumentException("no JSON Schema for type " + type.getTypeName());
  }

  private static Type typeArgument(Type type, int index) {
    if (type instanceof ParameterizedType p) {
      return p.getActualTypeArguments()[index];
    }
    throw new IllegalArgumentException("raw generic type, add type arguments: " + type);
  }

  private static Type componentType(Type type) {
    if (type instanceof GenericArrayType g) {
      return g.getGenericComponentType();
    }
    return ((Class<?>) type).getComponentType();
  }
}
