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
 * {@code enum}, {@code const}, the numeric bounds, the length and size bounds, {@code allOf},
 * {@code anyOf}, {@code if}/{@code then}/{@code else}, definitions in the root's {@code $defs}
 * reached by {@code $ref: "#/$defs/name"} (without cycles), and annotations. A schema that uses
 * anything else, or uses these in a way this class does not know to be well formed, is not
 * compiled here ({@link #compile} returns null) and goes to the general validator, which also
 * gives the registration error.
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

  /** Where a reference this class resolves points: a definition of the root. */
  private static final String DEFS_POINTER = "#/$defs/";
  private static final java.util.regex.Pattern DEF_NAME =
      java.util.regex.Pattern.compile("[A-Za-z0-9_.-]+");
  /** An anchor's name as 2020-12 allows it. */
  private static final java.util.regex.Pattern ANCHOR =
      java.util.regex.Pattern.compile("[A-Za-z_][-A-Za-z0-9._]*");

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
    return new Compiler(schema.path("$defs")).compile(schema, true);
  }

  /** Compiles one root schema: its definitions are compiled once, when first referenced. */
  private static final class Compiler {
    private final JsonNode defs;
    private final Map<String, SimpleSchema> compiled = new java.util.HashMap<>();
    private final Set<String> resolving = new java.util.HashSet<>();

    Compiler(JsonNode defs) {
      this.defs = defs;
    }

    SimpleSchema compile(JsonNode schema, boolean root) {
      if (schema.isBoolean()) {
        return new SimpleSchema(List.of(), !schema.booleanValue());
      }
      if (!schema.isObject()) {
        return null;
      }
      List<Check> checks = new ArrayList<>();
      Map<String, SimpleSchema> properties = null;
      SimpleSchema additional = null;
      int additionalAt = -1;
      SimpleSchema condition = null;
      SimpleSchema then = null;
      SimpleSchema otherwise = null;
      int conditionAt = -1;
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
            // it reads the properties beside it, wherever they stand: made after the loop
            additional = compile(value, false);
            if (additional == null) {
              return null;
            }
            additionalAt = checks.size();
            checks.add(null);
            continue;
          }
          case "required" -> check = requiredCheck(value);
          case "items" -> {
            SimpleSchema items = compile(value, false);
            check = items == null ? null : new ItemsCheck(items);
          }
          case "enum" -> check = value.isArray() && !value.isEmpty() ? new EnumCheck(value) : null;
          case "const" -> check = new ConstCheck(value);
          case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum" ->
              check = value.isNumber() && finite(value) ? BoundCheck.of(keyword, value) : null;
          case "minLength", "maxLength", "minItems", "maxItems" ->
              check = count(value) ? CountCheck.of(keyword, value.longValue()) : null;
          case "allOf", "anyOf" -> {
            List<SimpleSchema> all = list(value);
            check = all == null ? null : keyword.equals("allOf") ? new AllOfCheck(all)
                : new AnyOfCheck(all);
          }
          case "if" -> {
            // then and else are read by it, wherever they stand: made after the loop
            condition = compile(value, false);
            if (condition == null) {
              return null;
            }
            conditionAt = checks.size();
            checks.add(null);
            continue;
          }
          case "then", "else" -> {
            SimpleSchema branch = compile(value, false);
            if (branch == null) {
              return null;
            }
            if (keyword.equals("then")) {
              then = branch;
            } else {
              otherwise = branch;
            }
            continue;
          }
          case "$ref" -> check = refCheck(value);
          case "$defs" -> {
            if (!root || !definitionsCompile()) {
              return null;
            }
            continue;
          }
          case "$anchor" -> {
            if (!value.isString() || !ANCHOR.matcher(value.asString()).matches()) {
              return null;
            }
            continue;
          }
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
      if (additionalAt >= 0) {
        checks.set(additionalAt,
            new AdditionalCheck(additional, properties == null ? Map.of() : properties));
      }
      if (conditionAt >= 0) {
        checks.set(conditionAt, new IfCheck(condition, then, otherwise));
      }
      // the general validator runs type first, then properties, then the rest in the schema's
      // order (a stable sort), and its messages come in that order
      checks.sort(Comparator.comparingInt(SimpleSchema::rank));
      return new SimpleSchema(List.copyOf(checks), false);
    }

    private Map<String, SimpleSchema> properties(JsonNode value) {
      if (!value.isObject()) {
        return null;
      }
      Map<String, SimpleSchema> properties = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> field : value.properties()) {
        SimpleSchema schema = compile(field.getValue(), false);
        if (schema == null) {
          return null;
        }
        properties.put(field.getKey(), schema);
      }
      return properties;
    }

    private List<SimpleSchema> list(JsonNode value) {
      if (!value.isArray() || value.isEmpty()) {
        return null;
      }
      List<SimpleSchema> all = new ArrayList<>();
      for (JsonNode item : value) {
        SimpleSchema schema = compile(item, false);
        if (schema == null) {
          return null;
        }
        all.add(schema);
      }
      return List.copyOf(all);
    }

    /** Whether every definition compiles here (one that does not sends the whole schema on). */
    private boolean definitionsCompile() {
      if (!defs.isObject()) {
        return false;
      }
      for (Map.Entry<String, JsonNode> def : defs.properties()) {
        if (definition(def.getKey()) == null) {
          return false;
        }
      }
      return true;
    }

    private Check refCheck(JsonNode value) {
      if (!value.isString() || !value.asString().startsWith(DEFS_POINTER)) {
        return null;
      }
      String name = value.asString().substring(DEFS_POINTER.length());
      if (!DEF_NAME.matcher(name).matches()) {
        return null; // escapes (~0, ~1, %xx) and deeper pointers are left to the general one
      }
      SimpleSchema target = definition(name);
      return target == null ? null : new RefCheck(target);
    }

    /** The definition called {@code name}, compiled once; null when missing or in a cycle. */
    private SimpleSchema definition(String name) {
      SimpleSchema done = compiled.get(name);
      if (done != null) {
        return done;
      }
      JsonNode def = defs.isObject() ? defs.get(name) : null;
      if (def == null || !resolving.add(name)) {
        return null; // a reference that reaches itself again is left to the general validator
      }
      SimpleSchema schema = compile(def, false);
      resolving.remove(name);
      if (schema != null) {
        compiled.put(name, schema);
      }
      return schema;
    }
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

  /** A numeric bound: which side it holds and whether the bound itself passes. */
  private record BoundCheck(BigDecimal bound, boolean lower, boolean exclusive, String message)
      implements Check {
    static BoundCheck of(String keyword, JsonNode bound) {
      boolean lower = keyword.endsWith("inimum");
      boolean exclusive = keyword.startsWith("exclusive");
      String words = (exclusive ? "an exclusive " : "a ") + (lower ? "minimum" : "maximum");
      return new BoundCheck(bound.decimalValue(), lower, exclusive,
          "must have " + words + " value of " + bound.toString());
    }

    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isNumber() || !finite(value)) {
        return;
      }
      int order = value.decimalValue().compareTo(bound);
      boolean ok = lower ? (exclusive ? order > 0 : order >= 0)
          : (exclusive ? order < 0 : order <= 0);
      if (!ok) {
        errors.add(message);
      }
    }
  }

  /** A length bound on strings, counted in code points. */
  private record LengthCheck(long limit, boolean lower) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isString()) {
        return;
      }
      String text = value.asString();
      long length = text.codePointCount(0, text.length());
      if (lower && length < limit) {
        errors.add("must be at least " + limit + " characters long");
      } else if (!lower && length > limit) {
        errors.add("must be at most " + limit + " characters long");
      }
    }
  }

  /** A size bound on arrays. */
  private record SizeCheck(long limit, boolean lower) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      if (!value.isArray()) {
        return;
      }
      int size = value.size();
      if (lower && size < limit) {
        errors.add("must have at least " + limit + " items but found " + size);
      } else if (!lower && size > limit) {
        errors.add("must have at most " + limit + " items but found " + size);
      }
    }
  }

  /** Makes the length or size check a keyword names. */
  private static final class CountCheck {
    private CountCheck() {}

    static Check of(String keyword, long limit) {
      boolean lower = keyword.startsWith("min");
      return keyword.endsWith("Length") ? new LengthCheck(limit, lower)
          : new SizeCheck(limit, lower);
    }
  }

  private record AllOfCheck(List<SimpleSchema> all) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      for (int i = 0; i < all.size(); i++) {
        all.get(i).validate(value, Integer.toString(i), errors);
      }
    }
  }

  /** Valid when one branch is; otherwise every branch's messages, in order. */
  private record AnyOfCheck(List<SimpleSchema> any) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      List<String> failed = new ArrayList<>();
      for (int i = 0; i < any.size(); i++) {
        int before = failed.size();
        any.get(i).validate(value, Integer.toString(i), failed);
        if (failed.size() == before) {
          return;
        }
      }
      errors.addAll(failed);
    }
  }

  /** The branch the condition picks; the condition's own messages are never reported. */
  private record IfCheck(SimpleSchema condition, SimpleSchema then, SimpleSchema otherwise)
      implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      List<String> failed = new ArrayList<>(0);
      condition.validate(value, "if", failed);
      if (failed.isEmpty()) {
        if (then != null) {
          then.validate(value, "then", errors);
        }
      } else if (otherwise != null) {
        otherwise.validate(value, "else", errors);
      }
    }
  }

  private record RefCheck(SimpleSchema target) implements Check {
    @Override
    public void validate(JsonNode value, List<String> errors) {
      target.validate(value, "$ref", errors);
    }
  }
}
