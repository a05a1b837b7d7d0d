package dev.keel.mcp.server.internal.schema;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.server.ToolParam;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Optional;
import tools.jackson.databind.BeanDescription;
import tools.jackson.databind.JavaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.cfg.MapperConfig;
import tools.jackson.databind.introspect.BeanPropertyDefinition;
import tools.jackson.databind.introspect.ClassIntrospector;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * Generates JSON Schema 2020-12 for the Java types an annotated method may take or return.
 *
 * <p>Records and POJOs are described by Jackson's own introspection of the mapper that binds
 * them, so the schema and the binding agree on every name: {@code @JsonProperty} renames and
 * {@code required}, {@code @JsonIgnore}, {@code @JsonPropertyDescription}, and
 * {@link ToolParam} on record components all count. A schema is made for one direction:
 * {@link Direction#IN} for values the peer sends (what Jackson can set), {@link Direction#OUT}
 * for values sent to it (what Jackson writes; nulls are left out, so only primitives and
 * explicitly required properties are required).
 */
public final class TypeSchemas {

  /** Which way a value travels, which decides its properties and which of them are required. */
  public enum Direction {
    /** An argument the peer sends. */
    IN,
    /** A result sent to the peer. */
    OUT
  }

  private static final int MAX_DEPTH = 8;

  private static final TypeSchemas STANDARD = new TypeSchemas(McpJson.standard().mapper()
      .rebuild().annotationIntrospector(new ToolParamNames()).build());

  private final JsonMapper mapper;

  /** Makes schemas for the types {@code mapper} binds. */
  public TypeSchemas(JsonMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * Returns the input schema of a type, as Keel's standard mapper binds it.
   *
   * @throws IllegalArgumentException for a type with no JSON form Keel knows, or nesting deeper
   *     than 8 (which also stops recursive records)
   */
  public static ObjectNode of(Type type) {
    return STANDARD.schema(type, Direction.IN);
  }

  /**
   * Returns the schema of a type for one direction.
   *
   * @throws IllegalArgumentException for a type with no JSON form Keel knows, or nesting deeper
   *     than 8 (which also stops recursive records)
   */
  public ObjectNode schema(Type type, Direction direction) {
    return of(mapper.constructType(type), direction, 0);
  }

  /** Returns true when the type is {@code Optional<…>} (an argument that may be left out). */
  public static boolean isOptional(Type type) {
    return raw(type) == Optional.class;
  }

  private ObjectNode of(JavaType type, Direction direction, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException("type nests too deeply for a schema: " + type);
    }
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    Class<?> raw = type.getRawClass();
    String scalar = scalarType(raw);
    if (scalar != null) {
      schema.put("type", scalar);
    } else if (raw.isEnum()) {
      schema.put("type", "string");
      ArrayNode values = schema.putArray("enum");
      for (Object constant : raw.getEnumConstants()) {
        values.add(enumName((Enum<?>) constant));
      }
    } else if (raw == Optional.class) {
      return of(contained(type, 0), direction, depth);
    } else if (type.isArrayType() || type.isCollectionLikeType()) {
      schema.put("type", "array");
      schema.set("items", of(contained(type, 0), direction, depth + 1));
    } else if (type.isMapLikeType()) {
      if (type.getKeyType().getRawClass() != String.class) {
        throw new IllegalArgumentException("map keys must be strings: " + type.toCanonical());
      }
      schema.put("type", "object");
      schema.set("additionalProperties", of(type.getContentType(), direction, depth + 1));
    } else if (ObjectNode.class.isAssignableFrom(raw)) {
      schema.put("type", "object");
    } else if (JsonNode.class.isAssignableFrom(raw)) {
      return schema;
    } else if (raw.isRecord() || isBean(raw)) {
      return objectSchema(type, direction, depth);
    } else {
      throw new IllegalArgumentException("no JSON Schema for type " + type.toCanonical()
          + " (use String, numbers, boolean, enums, lists, maps, records or JavaBeans)");
    }
    return schema;
  }

  private static String scalarType(Class<?> raw) {
    if (raw == String.class || raw == char.class || raw == Character.class) {
      return "string";
    }
    if (raw == int.class || raw == Integer.class || raw == long.class || raw == Long.class
        || raw == short.class || raw == Short.class || raw == byte.class || raw == Byte.class
        || raw == BigInteger.class) {
      return "integer";
    }
    if (raw == double.class || raw == Double.class || raw == float.class
        || raw == Float.class || raw == BigDecimal.class) {
      return "number";
    }
    if (raw == boolean.class || raw == Boolean.class) {
      return "boolean";
    }
    return null;
  }

  /** Returns the name Jackson writes for an enum constant: its {@code @JsonProperty}, if any. */
  static String enumName(Enum<?> constant) {
    try {
      JsonProperty renamed = constant.getDeclaringClass().getField(constant.name())
          .getAnnotation(JsonProperty.class);
      return renamed != null && !renamed.value().isEmpty() ? renamed.value() : constant.name();
    } catch (NoSuchFieldException e) {
      return constant.name();
    }
  }

  /**
   * A JavaBean: a concrete class of the application (not the JDK's, whose internals are no
   * contract), which Jackson can then describe by its properties.
   */
  private static boolean isBean(Class<?> raw) {
    String name = raw.getName();
    return !raw.isInterface() && !Modifier.isAbstract(raw.getModifiers()) && !raw.isPrimitive()
        && !raw.isArray() && !name.startsWith("java.") && !name.startsWith("javax.")
        && !name.startsWith("jdk.") && !name.startsWith("sun.");
  }

  private ObjectNode objectSchema(JavaType type, Direction direction, int depth) {
    Class<?> raw = type.getRawClass();
    BeanDescription bean = introspect(type, direction);
    if (direction == Direction.IN && !raw.isRecord() && !creatable(raw)) {
      throw new IllegalArgumentException(raw.getName() + " cannot be created from JSON: give it "
          + "a no-argument constructor or a @JsonCreator, or make it a record");
    }
    ObjectNode schema = JsonNodeFactory.instance.objectNode();
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    ArrayNode required = JsonNodeFactory.instance.arrayNode();
    for (BeanPropertyDefinition property : bean.findProperties()) {
      if (direction == Direction.IN ? !property.couldDeserialize() : !property.couldSerialize()) {
        continue;
      }
      Optional<RecordComponent> component = component(raw, property.getInternalName());
      ToolParam param = component.map(c -> c.getAnnotation(ToolParam.class)).orElse(null);
      JavaType propertyType = property.getPrimaryType();
      ObjectNode child = of(propertyType, direction, depth + 1);
      String description = param != null && !param.description().isEmpty()
          ? param.description() : property.getMetadata().getDescription();
      if (description != null && !description.isEmpty()) {
        child.put("description", description);
      }
      String defaultText = param != null && !param.defaultValue().isEmpty()
          ? param.defaultValue() : property.getMetadata().getDefaultValue();
      boolean hasDefault = defaultText != null && !defaultText.isEmpty();
      if (hasDefault && direction == Direction.IN) {
        child.set("default", defaultValue(defaultText, propertyType, child,
            raw.getSimpleName() + "." + property.getName()));
      }
      boolean optional = propertyType.getRawClass() == Optional.class;
      if (optional && direction == Direction.OUT) {
        nullable(child);
      }
      properties.set(property.getName(), child);
      if (isRequired(property, param, propertyType, raw.isRecord(), direction, hasDefault)) {
        required.add(property.getName());
      }
    }
    if (!required.isEmpty()) {
      schema.set("required", required);
    }
    schema.put("additionalProperties", false);
    return schema;
  }

  private static boolean isRequired(BeanPropertyDefinition property, ToolParam param,
      JavaType type, boolean record, Direction direction, boolean hasDefault) {
    if (type.getRawClass() == Optional.class || (hasDefault && direction == Direction.IN)) {
      return false;
    }
    boolean primitive = type.getRawClass().isPrimitive();
    if (property.getMetadata().isRequired() || primitive) {
      return true;
    }
    if (direction == Direction.OUT) {
      // nulls are not written, so a reference may always be missing from the output
      return false;
    }
    return record && (param == null || param.required());
  }

  /** Lets a schema also take null: an empty Optional is written as null. */
  private static void nullable(ObjectNode schema) {
    JsonNode type = schema.get("type");
    if (type != null && type.isString()) {
      schema.putArray("type").add(type.asString()).add("null");
    }
    if (schema.get("enum") instanceof ArrayNode values) {
      values.addNull();
    }
  }

  /**
   * Parses a default given as text: as itself for a string or enum schema, as JSON otherwise,
   * and checks that it binds to the type.
   *
   * @throws IllegalArgumentException naming {@code owner} when it does not
   */
  JsonNode defaultValue(String text, JavaType type, ObjectNode schema, String owner) {
    JsonNode value;
    try {
      value = "string".equals(schema.path("type").asString(""))
          ? JsonNodeFactory.instance.stringNode(text) : mapper.readTree(text);
      JsonNode allowed = schema.get("enum");
      if (allowed != null && !allowed.valueStream().anyMatch(value::equals)) {
        throw new IllegalArgumentException("not one of " + allowed);
      }
      mapper.treeToValue(value, type);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("default value " + text + " of " + owner
          + " does not fit its type " + type.toCanonical(), e);
    }
    return value;
  }

  /** Returns the default value of a parameter of this type, parsed and checked. */
  public JsonNode defaultValue(String text, Type type, String owner) {
    JavaType javaType = mapper.constructType(type);
    return defaultValue(text, javaType, of(javaType, Direction.IN, 0), owner);
  }

  private BeanDescription introspect(JavaType type, Direction direction) {
    MapperConfig<?> config = direction == Direction.IN ? mapper.deserializationConfig()
        : mapper.serializationConfig();
    ClassIntrospector introspector = config.classIntrospectorInstance().forOperation(config);
    return direction == Direction.IN
        ? introspector.introspectForDeserialization(type,
            introspector.introspectClassAnnotations(type))
        : introspector.introspectForSerialization(type,
            introspector.introspectClassAnnotations(type));
  }

  private static boolean creatable(Class<?> raw) {
    boolean nested = raw.getEnclosingClass() != null && !Modifier.isStatic(raw.getModifiers());
    return !nested && (Arrays.stream(raw.getDeclaredConstructors())
        .anyMatch(c -> c.getParameterCount() == 0 || c.isAnnotationPresent(JsonCreator.class))
        || Arrays.stream(raw.getDeclaredMethods()).anyMatch(
            m -> Modifier.isStatic(m.getModifiers()) && m.isAnnotationPresent(JsonCreator.class)));
  }

  private static Optional<RecordComponent> component(Class<?> raw, String name) {
    if (!raw.isRecord()) {
      return Optional.empty();
    }
    return Arrays.stream(raw.getRecordComponents()).filter(c -> c.getName().equals(name))
        .findFirst();
  }

  private static JavaType contained(JavaType type, int index) {
    JavaType content = type.isArrayType() || type.isCollectionLikeType()
        || type.isReferenceType() ? type.getContentType() : type.containedType(index);
    if (content == null || content.getRawClass() == Object.class && type.containedType(0) == null
        && !type.isArrayType()) {
      throw new IllegalArgumentException("raw generic type, add type arguments: "
          + type.toCanonical());
    }
    return content;
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
}
