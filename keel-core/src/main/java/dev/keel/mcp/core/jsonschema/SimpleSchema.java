package dev.keel.mcp.core.jsonschema;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A JSON Schema 2020-12 validator for the schemas tools actually declare: {@code type},
 * {@code properties}, {@code required}, {@code additionalProperties}, {@code items},
 * {@code enum}, {@code const}, the numeric bounds, the length and size bounds, and
 * annotations. A schema that uses anything else, or uses these in a way this class does not
 * know to be well formed, is not compiled here ({@link #compile} returns null) and goes to the
 * general validator, which also gives the registration error.
 *
 * <p>Why a second validator: building the general one (its dialect, keyword table and
 * meta-schemas) was about 7 MB of idle RSS and a tenth of a second of every server's start on
 * one core, for schemas that are almost always a flat object of typed properties
 * (docs/performance.md, issue 22). It answers exactly as the general validator does, messages
 * and their order included, so which one ran is invisible. SimpleSchemaDifferentialTest holds the two
 * to that on generated schemas and values.
 */
final class SimpleSchema {

  /** JSON Schema 2020-12's dialect id: a schema may name it and still be compiled here. */
  static final String DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

  private static final Set<String> ANNOTATIONS = Set.of("title", "description", "default",
      "examples", "deprecated", "readOnly", "writeOnly", "$comment", "x-mcp-header");

  private static final Set<String> TYPES = Set.of("object", "array", "string", "number",
      "integer", "boolean", "null");

  /** The checks of one schema object, in the schema's order; null for the schema {@code true}. */
  private final List<Check> checks;
  /** Whether this is the schema {@code false}. */
  private final boolean refuseAll;

  private SimpleSchema(List<Check> checks, boolean refuseAll) {
    this.checks = checks;
    this.refuseAll = refuseAll;
  }

  /** Returns the compiled schema, or null when it is not one this class validates. */
  static SimpleSchema compile(JsonNode schema) {
    if (schema.isBoolean()) {
      return new SimpleSchema(List.of(), !schema.booleanValue());
    }
    if (!schema.isObject()) {
      return null;
    }
    List<Check> checks = new ArrayList<>();
    Map<String, SimpleSchema> properties = null;
    SimpleSchema additional = null;
    for (Map.Entry<String, JsonNode> field : schema.properties()) {
      String keyword = field.getKey();
      JsonNode value = field.getValue();
      Check check;
      switch (keyword) {
        case "type" -> check = typeCheck(value);
        case "properties" -> {
          properties = properties(value);
          check = properties == null ? null : new PropertiesCheck(properties);
        }
        case "additionalProperties" -> {
          additional = compile(value);
          check = additional == null ? null : new AdditionalCheck(additional);
        }
        case "required" -> check = requiredCheck(value);
        case "items" -> {
          SimpleSchema items = compile(value);
          check = items == null ? null : new ItemsCheck(items);
        }
        case "enum" -> check = value.isArray() && !value.isEmpty() ? new EnumCheck(value) : null;
        case "const" -> check = new ConstCheck(value);
        case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" ->
            check = value.isNumber() && finite(value) ? new BoundCheck(keyword, value) : null;
        case "minLength", "maxLength", "minItems", "maxItems" ->
            check = count(value) ? new CountCheck(keyword, value.longValue()) : null;
        case "$schema" -> {
          if (!value.isString() || !DRAFT_2020_12.equals(value.asString())) {
            return null;
          }
          continue;
        }
        default -> {
          if (ANNOTATIONS.contains(keyword)) {
            continue;
          }
          return null;
        }
      }
      if (check == null) {
        return null;
      }
      checks.add(check);
    }
    // additionalProperties reads the properties beside it, wherever either stands
    for (int i = 0; i < checks.size(); i++) {
      if (checks.get(i) instanceof AdditionalCheck a) {
        checks.set(i, new AdditionalCheck(a.schema, properties == null ? Map.of() : properties));
      }
    }
    // the general validator runs type first, then properties, then the rest in the schema's
    // order (a stable sort), and its messages come in that order
    checks.sort(Comparator.comparingInt(SimpleSchema::rank));
    return new SimpleSchema(List.copyOf(checks), false);
  }

  private static int rank(Check check) {
    return check instanceof TypeCheck ? 0 : check instanceof PropertiesCheck ? 1 : 2;
  }

  /** Appends what is wrong with {@code value} to {@code errors}, in the general validator's words. */
  void validate(JsonNode value, String name, List<String> errors) {
    if (refuseAll) {
      errors.add("schema for '" + name + "' is false");
      return;
    }
    for (Check check : checks) {
      check.validate(value, errors);
    }
  }

  private static boolean finite(JsonNode number) {
    return !number.isFloatingPointNumber() || Double.isFinite(number.doubleValue());
  }

  private static boolean count(JsonNode value) {
    return value.isIntegralNumber() && value.canConvertToLong() && value.longValue() >= 0;
  }

  private static Check typeCheck(JsonNode value) {
    List<String> types = new ArrayList<>();
    if (value.isString()) {
      types.add(value.asString());
    } else if (value.isArray() && !value.isEmpty()) {
      for (JsonNode t : value) {
        if (!t.isString()) {
          return null;
        }
        types.add(t.asString());
      }
    } else {
      return null;
    }
    if (!TYPES.containsAll(types) || Set.copyOf(types).size() != types.size()) {
      return null;
    }
    String expected = value.isArray() ? "[" + String.join(", ", types) + "]" : types.get(0);
    return new TypeCheck(List.copyOf(types), expected);
  }

  private static Map<String, SimpleSchema> properties(JsonNode value) {
    if (!value.isObject()) {
      return null;
    }
    Map<String, SimpleSchema> properties = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> field : value.properties()) {
      SimpleSchema schema = compile(field.getValue());
      if (schema == null) {
        return null;
      }
      properties.put(field.getKey(), schema);
    }
    return properties;
  }

  private static Check requiredCheck(JsonNode value) {
    if (!value.isArray()) {
      return null;
    }
    List<String> names = new ArrayList<>();
    for (JsonNode name : value) {
      if (!name.isString()) {
        return null;
      }
      names.add(name.asString());
    }
    if (Set.copyOf(names).size() != names.size()) {
      return null;
    }
    return new RequiredCheck(List.copyOf(names));
  }

  /** The JSON type the general validator names in its messages. */
  private static String typeOf(JsonNode value) {
    if (value.isObject()) {
      return "object";
    } else if (value.isArray()) {
      return "array";
    } else if (value.isString()) {
      return "string";
    } else if (value.isBoolean()) {
      return "boolean";
    } else if (value.isNull()) {
      return "null";
    } else if (value.isIntegralNumber()) {
      return "integer";
    }
    return "number";
  }

  private static boolean hasType(JsonNode value, String type) {
    return switch (type) {
      case "object" -> value.isObject();
      case "array" -> value.isArray();
      case "string" -> value.isString();
      case "boolean" -> value.isBoolean();
      case "null" -> value.isNull();
      case "number" -> value.isNumber();
      case "integer" -> value.isIntegralNumber()
          || value.isNumber() && finite(value) && isWhole(value.decimalValue());
      default -> false;
    };
  }

  private static boolean isWhole(BigDecimal number) {
    return number.signum() == 0 || number.stripTrailingZeros().scale() <= 0;
  }

  /** JSON equality: numbers by value (1 equals 1.0), objects by their members, arrays in order. */
  static boolean jsonEquals(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return finite(a) && finite(b) ? a.decimalValue().compareTo(b.decimalValue()) == 0
          : a.doubleValue() == b.doubleValue();
    }
    if (a.isObject() && b.isObject()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (Map.Entry<String, JsonNode> field : a.properties()) {
        JsonNode other = b.get(field.getKey());
        if (other == null || !jsonEquals(field.getValue(), other)) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray() && b.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      Iterator<JsonNode> i = a.iterator();
      Iterator<JsonNode> j = b.iterator();
      while (i.hasNext()) {
        if (!jsonEquals(i.next(), j.next())) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }

  private interface Check {
    void validate(JsonNode value, List<String> errors);
  }

  private record TypeCheck(List<String> types, String expected) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      for (String type : types) {
        if (hasType(value, type)) {
          return;
        }
      }
      errors.add(typeOf(value) + " found, " + expected + " expected");
    }
  }

  private record PropertiesCheck(Map<String, SimpleSchema> properties) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isObject()) {
        return;
      }
      for (Map.Entry<String, SimpleSchema> property : properties.entrySet()) {
        JsonNode member = value.get(property.getKey());
        if (member != null) {
          property.getValue().validate(member, property.getKey(), errors);
        }
      }
    }
  }

  private record AdditionalCheck(SimpleSchema schema, Map<String, SimpleSchema> declared)
      implements Check {
    AdditionalCheck(SimpleSchema schema) {
      this(schema, Map.of());
    }

    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isObject()) {
        return;
      }
      for (Map.Entry<String, JsonNode> member : value.properties()) {
        if (declared.containsKey(member.getKey())) {
          continue;
        }
        if (schema.refuseAll) {
          errors.add("property '" + member.getKey() + "' is not defined in the schema and the"
              + " schema does not allow additional properties");
        } else {
          schema.validate(member.getValue(), member.getKey(), errors);
        }
      }
    }
  }

  private record RequiredCheck(List<String> names) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isObject()) {
        return;
      }
      for (String name : names) {
        if (!value.has(name)) {
          errors.add("required property '" + name + "' not found");
        }
      }
    }
  }

  private record ItemsCheck(SimpleSchema items) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isArray()) {
        return;
      }
      for (int i = 0; i < value.size(); i++) {
        if (items.refuseAll) {
          errors.add("index '" + i + "' is not defined in the schema and the schema does not"
              + " allow additional items");
        } else {
          items.validate(value.get(i), Integer.toString(i), errors);
        }
      }
    }
  }

  private record EnumCheck(JsonNode values) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      for (JsonNode allowed : values) {
        if (jsonEquals(allowed, value)) {
          return;
        }
      }
      List<String> listed = new ArrayList<>();
      values.forEach(v -> listed.add(v.toString()));
      errors.add("does not have a value in the enumeration [" + String.join(", ", listed) + "]");
    }
  }

  private record ConstCheck(JsonNode constant) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!jsonEquals(constant, value)) {
        String shown = constant.isString() ? constant.asString() : constant.toString();
        errors.add("must be the constant value '" + shown + "'");
      }
    }
  }

  private record BoundCheck(String keyword, JsonNode bound) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isNumber() || !finite(value)) {
        return;
      }
      int order = value.decimalValue().compareTo(bound.decimalValue());
      boolean ok = switch (keyword) {
        case "minimum" -> order >= 0;
        case "maximum" -> order <= 0;
        case "exclusiveMinimum" -> order > 0;
        default -> order < 0;
      };
      if (!ok) {
        String words = switch (keyword) {
          case "minimum" -> "a minimum";
          case "maximum" -> "a maximum";
          case "exclusiveMinimum" -> "an exclusive minimum";
          default -> "an exclusive maximum";
        };
        errors.add("must have " + words + " value of " + bound.toString());
      }
    }
  }

  private record CountCheck(String keyword, long limit) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      switch (keyword) {
        case "minLength", "maxLength" -> {
          if (!value.isString()) {
            return;
          }
          String text = value.asString();
          long length = text.codePointCount(0, text.length());
          if (keyword.equals("minLength") && length < limit) {
            errors.add("must be at least " + limit + " characters long");
          } else if (keyword.equals("maxLength") && length > limit) {
            errors.add("must be at most " + limit + " characters long");
          }
        }
        default -> {
          if (!value.isArray()) {
            return;
          }
          int size = value.size();
          if (keyword.equals("minItems") && size < limit) {
            errors.add("must have at least " + limit + " items but found " + size);
          } else if (keyword.equals("maxItems") && size > limit) {
            errors.add("must have at most " + limit + " items but found " + size);
          }
        }
      }
    }
  }
}
