package dev.keel.mcp.core.jsonschema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpJson;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * SimpleSchema must answer exactly as the general validator does: the same verdict, the same
 * messages in the same order, on schemas made only of the keywords it takes, and must leave
 * everything else to the general validator.
 */
class SimpleSchemaDifferentialTest {

  private static final McpJson JSON = McpJson.standard();
  private static final String[] NAMES = {"a", "b", "c", "d"};
  private static final String[] TYPES = {"object", "array", "string", "number", "integer",
      "boolean", "null"};
  private static final String[] VALUES = {"null", "true", "false", "0", "1", "-3", "6", "1.0",
      "2.5", "-0.5", "1e2", "9007199254740993", "\"\"", "\"x\"", "\"xy\"", "\"\\ud83d\\ude00\"",
      "\"abc\"", "[]", "{}"};

  @Test
  void generatedSchemasAndValuesGetTheGeneralValidatorsAnswers() {
    Random random = new Random(22);
    JsonSchemaCompiler compiler = new JsonSchemaCompiler();
    int invalid = 0;
    int compared = 0;
    int composed = 0;
    for (int s = 0; s < 3_000; s++) {
      ObjectNode schema = rootSchema(random);
      JsonSchemaValidator simple = compiler.compile(schema, "generated").orElseThrow();
      assertThat(simple.general()).as("%s is simple", schema).isFalse();
      JsonSchemaValidator general = compiler.compileGeneral(schema, "generated").orElseThrow();
      String text = schema.toString();
      composed += List.of("allOf", "anyOf", "\"if\"", "$ref").stream().anyMatch(text::contains)
          ? 1 : 0;
      for (int v = 0; v < 6; v++) {
        // through the peer reader, as arguments arrive
        JsonNode value = JSON.readPeerTree(value(random, schema, schema, 3).toString()
            .getBytes(StandardCharsets.UTF_8));
        if (integralBound(schema) && fraction(value)) {
          // the general validator compares a fraction with a whole-number bound by truncating
          // it (-0.5 passes "minimum": 0); SimpleSchema compares exactly, as the spec says:
          // integralBoundsCompareFractionsExactly
          continue;
        }
        List<String> expected = general.validate(value);
        assertThat(simple.validate(value)).as("schema %s, value %s", schema, value)
            .isEqualTo(expected);
        compared++;
        invalid += expected.isEmpty() ? 0 : 1;
      }
    }
    // the generator must reach both answers often, or the comparison proves little
    assertThat(compared).isGreaterThan(10_000);
    assertThat(composed).as("schemas with allOf, anyOf, if or $ref").isGreaterThan(1_000);
    assertThat(invalid).isBetween(compared / 5, compared * 4 / 5);
  }

  @Test
  void theConformanceSuitesSchemaOf2020_12KeywordsIsSimpleAndAnswersAlike() {
    // the shape of the conformance suite's SEP-1613 tool: $defs with an $anchor, $ref, allOf
    // with anyOf inside, if/then/else, additionalProperties false
    ObjectNode schema = JSON.parseObject("""
        {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
         "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":
           {"street":{"type":"string"},"city":{"type":"string"}}}},
         "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},
           "contactMethod":{"type":"string","enum":["phone","email"]},
           "phone":{"type":"string"},"email":{"type":"string"}},
         "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
         "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},
         "then":{"required":["phone"]},"else":{"required":["email"]},
         "additionalProperties":false}""");
    JsonSchemaCompiler compiler = new JsonSchemaCompiler();
    JsonSchemaValidator simple = compiler.compile(schema, "t").orElseThrow();
    assertThat(simple.general()).isFalse();
    JsonSchemaValidator general = compiler.compileGeneral(schema, "t").orElseThrow();
    int invalid = 0;
    for (String value : List.of("{}", "{\"name\":\"a\",\"email\":\"e\"}",
        "{\"contactMethod\":\"phone\",\"email\":\"e\"}",
        "{\"contactMethod\":\"phone\",\"phone\":\"1\"}",
        "{\"contactMethod\":\"fax\",\"phone\":\"1\",\"x\":1}",
        "{\"address\":{\"street\":1,\"city\":\"c\"},\"email\":\"e\"}",
        "{\"address\":\"here\",\"phone\":2}", "[]", "\"text\"")) {
      JsonNode parsed = JSON.parse(value);
      List<String> expected = general.validate(parsed);
      assertThat(simple.validate(parsed)).as(value).isEqualTo(expected);
      invalid += expected.isEmpty() ? 0 : 1;
    }
    assertThat(invalid).isBetween(5, 8);
  }

  @Test
  void integralBoundsCompareFractionsExactly() {
    JsonSchemaValidator v = new JsonSchemaCompiler().compile(JSON.parseObject(
        "{\"type\":\"object\",\"properties\":{\"a\":{\"minimum\":0,\"exclusiveMaximum\":2}}}"),
        "t").orElseThrow();
    assertThat(v.validate(JSON.parse("{\"a\":-0.5}")))
        .containsExactly("must have a minimum value of 0");
    assertThat(v.validate(JSON.parse("{\"a\":2.5}")))
        .containsExactly("must have an exclusive maximum value of 2");
    assertThat(v.validate(JSON.parse("{\"a\":1.5}"))).isEmpty();
  }

  @Test
  void schemasBeyondTheSubsetGoToTheGeneralValidator() {
    JsonSchemaCompiler compiler = new JsonSchemaCompiler();
    for (String schema : List.of(
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"pattern\":\"^x\"}}}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"format\":\"email\"}}}",
        "{\"type\":\"object\",\"oneOf\":[{\"required\":[\"a\"]}]}",
        "{\"$defs\":{\"n\":{\"$ref\":\"#/$defs/n\"}},\"properties\":{\"a\":{\"$ref\":\"#/$defs/n\"}}}",
        "{\"$defs\":{\"t\":{\"properties\":{\"next\":{\"$ref\":\"#/$defs/t\"}}}},\"$ref\":\"#/$defs/t\"}",
        "{\"$defs\":{\"n\":{\"$anchor\":\"num\",\"type\":\"integer\"}},\"$ref\":\"#num\"}",
        "{\"$defs\":{\"a~1b\":{\"type\":\"integer\"}},\"$ref\":\"#/$defs/a~1b\"}",
        "{\"properties\":{\"a\":{\"$defs\":{\"n\":{}},\"$ref\":\"#/$defs/n\"}}}",
        "{\"type\":\"object\",\"anyOf\":[]}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"strin\"}}}",
        "{\"type\":\"object\",\"required\":\"a\"}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"minLength\":-1}}}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"multipleOf\":2}}}",
        "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\"}",
        "{\"type\":\"object\",\"unknownKeyword\":1}")) {
      try {
        compiler.compile(JSON.parseObject(schema), "t")
            .ifPresent(v -> assertThat(v.general()).as(schema).isTrue());
      } catch (IllegalArgumentException e) {
        // the general validator's registration error: also what happened before SimpleSchema
        assertThat(e).hasMessageContaining("invalid JSON Schema");
      }
    }
  }

  @Test
  void aSchemaTheGeneralValidatorRefusesIsStillRefusedAtRegistration() {
    JsonSchemaCompiler compiler = new JsonSchemaCompiler();
    assertThatThrownBy(() -> compiler.compile(JSON.parseObject(
        "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"https://example.com/s.json\"}}}"),
        "tool t inputSchema"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("tool t inputSchema: invalid JSON Schema");
  }

  @Test
  void theUsualToolSchemaIsSimpleAndNamesWhatIsWrong() {
    JsonSchemaValidator v = new JsonSchemaCompiler().compile(JSON.parseObject("""
        {"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
         "properties":{"text":{"type":"string","description":"what to echo"},
                       "times":{"type":"integer","minimum":1}},
         "required":["text"],"additionalProperties":false}"""), "t").orElseThrow();
    assertThat(v.general()).isFalse();
    assertThat(v.validate(JSON.parse("{\"text\":\"hi\",\"times\":2}"))).isEmpty();
    assertThat(v.validate(JSON.parse("{\"times\":0,\"x\":1}"))).containsExactly(
        "must have a minimum value of 1", "required property 'text' not found",
        "property 'x' is not defined in the schema and the schema does not allow additional"
            + " properties");
  }

  private static boolean integralBound(JsonNode schema) {
    if (schema.isObject()) {
      for (String bound : List.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")) {
        if (schema.path(bound).isIntegralNumber()) {
          return true;
        }
      }
    }
    for (JsonNode child : schema) {
      if (integralBound(child)) {
        return true;
      }
    }
    return false;
  }

  private static boolean fraction(JsonNode value) {
    if (value.isFloatingPointNumber()) {
      return value.doubleValue() != Math.rint(value.doubleValue());
    }
    for (JsonNode child : value) {
      if (fraction(child)) {
        return true;
      }
    }
    return false;
  }

  /** A schema that sometimes has definitions, which its subschemas may refer to. */
  private static ObjectNode rootSchema(Random random) {
    List<String> defs = new ArrayList<>();
    ObjectNode definitions = McpJson.object();
    if (random.nextInt(3) == 0) {
      for (int i = 0; i < 1 + random.nextInt(2); i++) {
        // a later definition may refer to an earlier one, never the other way: no cycles
        definitions.set("d" + i, subschema(random, 1 + random.nextInt(2), List.copyOf(defs)));
        defs.add("d" + i);
      }
    }
    ObjectNode schema = schema(random, 3, defs);
    if (!defs.isEmpty()) {
      // where $defs stands among the keywords does not matter; put it first or last
      ObjectNode root = McpJson.object();
      if (random.nextBoolean()) {
        root.set("$defs", definitions);
        root.setAll(schema);
        return root;
      }
      schema.set("$defs", definitions);
    }
    return schema;
  }

  private static ObjectNode schema(Random random, int depth, List<String> defs) {
    ObjectNode schema = McpJson.object();
    List<Runnable> parts = new ArrayList<>();
    parts.add(() -> {
      if (random.nextInt(3) == 0) {
        ArrayNode types = schema.putArray("type");
        List<String> pool = new ArrayList<>(List.of(TYPES));
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
          types.add(pool.remove(random.nextInt(pool.size())));
        }
      } else {
        schema.put("type", TYPES[random.nextInt(TYPES.length)]);
      }
    });
    if (depth > 0) {
      parts.add(() -> {
        ObjectNode properties = schema.putObject("properties");
        for (String name : NAMES) {
          if (random.nextInt(2) == 0) {
            properties.set(name, subschema(random, depth - 1, defs));
          }
        }
      });
      parts.add(() -> schema.set("additionalProperties", subschema(random, depth - 1, defs)));
      parts.add(() -> schema.set("items", subschema(random, depth - 1, defs)));
      for (String combinator : List.of("allOf", "anyOf")) {
        parts.add(() -> {
          ArrayNode all = schema.putArray(combinator);
          for (int i = 1 + random.nextInt(3); i > 0; i--) {
            all.add(subschema(random, depth - 1, defs));
          }
        });
      }
      parts.add(() -> {
        // if, then and else in any order, and now and then a then or else without an if
        List<String> words = new ArrayList<>(List.of("if", "then", "else"));
        java.util.Collections.shuffle(words, random);
        for (String word : words.subList(random.nextInt(2), 3)) {
          schema.set(word, subschema(random, depth - 1, defs));
        }
      });
    }
    if (!defs.isEmpty()) {
      parts.add(() -> schema.put("$ref", "#/$defs/" + defs.get(random.nextInt(defs.size()))));
    }
    parts.add(() -> {
      ArrayNode required = schema.putArray("required");
      for (String name : NAMES) {
        if (random.nextInt(3) == 0) {
          required.add(name);
        }
      }
    });
    parts.add(() -> {
      ArrayNode values = schema.putArray("enum");
      for (int i = 1 + random.nextInt(3); i > 0; i--) {
        values.add(JSON.parse(VALUES[random.nextInt(VALUES.length)]));
      }
    });
    parts.add(() -> schema.set("const", JSON.parse(VALUES[random.nextInt(VALUES.length)])));
    for (String bound : List.of("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")) {
      parts.add(() -> schema.set(bound, JSON.parse(List.of("0", "1", "2.5", "-1", "1.0", "1e2",
          "9007199254740992").get(random.nextInt(7)))));
    }
    for (String count : List.of("minLength", "maxLength", "minItems", "maxItems")) {
      parts.add(() -> schema.put(count, random.nextInt(4)));
    }
    parts.add(() -> schema.put("description", "generated"));
    // a few keywords each, in a random order: the messages' order depends on the schema's
    java.util.Collections.shuffle(parts, random);
    int keywords = 1 + random.nextInt(4);
    for (int i = 0; i < keywords && i < parts.size(); i++) {
      parts.get(i).run();
    }
    return schema;
  }

  private static JsonNode subschema(Random random, int depth, List<String> defs) {
    int pick = random.nextInt(10);
    if (pick == 0) {
      return JSON.parse("false");
    } else if (pick == 1) {
      return JSON.parse("true");
    }
    return schema(random, depth, defs);
  }

  /** A value shaped by the schema often enough to pass it, and off it often enough to fail. */
  private static JsonNode value(Random random, JsonNode root, JsonNode schema, int depth) {
    if (schema.isObject() && schema.has("$ref") && random.nextInt(2) == 0) {
      String name = schema.get("$ref").asString().substring("#/$defs/".length());
      return value(random, root, root.get("$defs").get(name), depth);
    }
    for (String combinator : List.of("anyOf", "allOf")) {
      if (schema.isObject() && schema.has(combinator) && random.nextInt(3) == 0) {
        JsonNode all = schema.get(combinator);
        return value(random, root, all.get(random.nextInt(all.size())), depth);
      }
    }
    if (schema.isObject() && schema.has("then") && random.nextInt(3) == 0) {
      return value(random, root, schema.get("then"), depth);
    }
    if (schema.isObject() && random.nextInt(4) > 0) {
      JsonNode choices = schema.has("enum") ? schema.get("enum") : null;
      if (choices != null && random.nextInt(2) == 0) {
        return choices.get(random.nextInt(choices.size()));
      }
      if (schema.has("const") && random.nextInt(2) == 0) {
        return schema.get("const");
      }
      JsonNode properties = schema.get("properties");
      if ((properties != null || schema.has("required")) && depth > 0) {
        ObjectNode object = McpJson.object();
        for (String name : NAMES) {
          if (random.nextInt(3) > 0) {
            JsonNode sub = properties != null && properties.has(name) ? properties.get(name)
                : schema.path("additionalProperties");
            object.set(name, value(random, root, sub.isMissingNode() ? JSON.parse("{}") : sub,
                depth - 1));
          }
        }
        if (random.nextInt(5) == 0) {
          object.put("z", 1);
        }
        return object;
      }
      if (schema.has("items") && depth > 0) {
        ArrayNode array = JSON.mapper().createArrayNode();
        for (int i = random.nextInt(4); i > 0; i--) {
          array.add(value(random, root, schema.get("items"), depth - 1));
        }
        return array;
      }
    }
    if (depth > 0 && random.nextInt(6) == 0) {
      ArrayNode array = JSON.mapper().createArrayNode();
      for (int i = random.nextInt(3); i > 0; i--) {
        array.add(value(random, root, JSON.parse("{}"), depth - 1));
      }
      return array;
    }
    return JSON.parse(VALUES[random.nextInt(VALUES.length)]);
  }
}
