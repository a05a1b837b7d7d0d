package dev.keel.cli.host;

import dev.keel.cli.output.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fields of an elicitation form (its {@code requestedSchema}: a flat object of primitive
 * properties), and turning what a person typed into the value each field's type asks for.
 *
 * <p>Enums come in the shapes SEP-1330 names: a plain {@code enum}, an {@code enum} with
 * {@code enumNames}, a {@code oneOf} of titled {@code const}s, and arrays of either (several
 * choices). A choice is given by its value, its number in the list (from 1) or its title.
 */
final class FormFields {

  /**
   * One field: its name, JSON type, whether it is required, its default, its choices (with
   * their titles, or the values again where untitled), whether several may be chosen, and its
   * description.
   */
  record Field(String name, String type, boolean required, JsonNode fallback,
      List<String> choices, List<String> titles, boolean multiple, String description) {

    /**
     * Returns how the field is shown: {@code name (type, required) - description}; a field
     * with choices says {@code choice} or {@code choices}, as the choices are listed above it.
     */
    String label() {
      StringBuilder b = new StringBuilder(TerminalText.firstLine(name, 60)).append(" (")
          .append(choices.isEmpty() ? (multiple ? "list" : type)
              : multiple ? "choices" : "choice");
      b.append(required ? ", required" : ", optional");
      if (fallback != null) {
        b.append(", default ").append(TerminalText.firstLine(shown(fallback), 60));
      }
      b.append(')');
      if (description != null && !description.isBlank()) {
        b.append(" - ").append(TerminalText.firstLine(description, 100));
      }
      return b.toString();
    }

    /** Returns true when the field's choices have titles worth showing beside the values. */
    boolean titled() {
      return !titles.equals(choices);
    }
  }

  private FormFields() {}

  private static String shown(JsonNode value) {
    if (value.isArray()) {
      List<String> parts = new ArrayList<>();
      value.forEach(v -> parts.add(v.asString(v.toString())));
      return String.join(",", parts);
    }
    return value.asString(value.toString());
  }

  /** Returns the form's fields in the schema's order; none for a schema without properties. */
  static List<Field> of(ObjectNode schema) {
    List<Field> fields = new ArrayList<>();
    if (schema == null || !(schema.get("properties") instanceof ObjectNode properties)) {
      return fields;
    }
    List<String> required = new ArrayList<>();
    schema.path("required").forEach(n -> required.add(n.asString("")));
    for (Map.Entry<String, JsonNode> p : properties.properties()) {
      JsonNode spec = p.getValue();
      String type = spec.path("type").asString("string");
      boolean multiple = type.equals("array");
      JsonNode choiceSpec = multiple ? spec.path("items") : spec;
      List<String> choices = new ArrayList<>();
      List<String> titles = new ArrayList<>();
      JsonNode names = choiceSpec.path("enumNames");
      choiceSpec.path("enum").forEach(n -> {
        String value = n.asString(n.toString());
        choices.add(value);
        JsonNode title = names.get(titles.size());
        titles.add(title != null && title.isString() ? title.asString() : value);
      });
      for (String variant : new String[] {"oneOf", "anyOf"}) {
        choiceSpec.path(variant).forEach(n -> {
          if (n.has("const")) {
            String value = n.get("const").asString(n.get("const").toString());
            choices.add(value);
            titles.add(n.path("title").asString(value));
          }
        });
      }
      JsonNode fallback = spec.get("default");
      fields.add(new Field(p.getKey(), type, required.contains(p.getKey()),
          fallback == null || fallback.isNull() ? null : fallback, choices, titles, multiple,
          spec.path("description").asString(null)));
    }
    return fields;
  }

  /**
   * Converts typed text into the field's JSON value.
   *
   * @throws IllegalArgumentException naming what was expected when the text does not fit
   */
  static JsonNode value(Field field, String text) {
    JsonNodeFactory nodes = JsonNodeFactory.instance;
    String t = text.strip();
    if (field.multiple()) {
      ArrayNode picked = nodes.arrayNode();
      for (String part : t.split(",")) {
        if (!part.isBlank()) {
          picked.add(field.choices().isEmpty() ? part.strip() : choice(field, part.strip()));
        }
      }
      return picked;
    }
    if (!field.choices().isEmpty()) {
      return nodes.stringNode(choice(field, t));
    }
    try {
      return switch (field.type()) {
        case "integer" -> nodes.numberNode(Long.parseLong(t));
        case "number" -> nodes.numberNode(new java.math.BigDecimal(t));
        case "boolean" -> nodes.booleanNode(bool(field, t));
        default -> nodes.stringNode(text);
      };
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(field.name() + " must be " + (field.type()
          .equals("integer") ? "a whole number" : "a number"));
    }
  }

  /** A choice by value, number in the list, or title (in that order). */
  private static String choice(Field field, String text) {
    if (field.choices().contains(text)) {
      return text;
    }
    if (text.matches("[0-9]{1,4}")) {
      int n = Integer.parseInt(text);
      if (n >= 1 && n <= field.choices().size()) {
        return field.choices().get(n - 1);
      }
    }
    for (int i = 0; i < field.titles().size(); i++) {
      if (field.titles().get(i).equalsIgnoreCase(text)) {
        return field.choices().get(i);
      }
    }
    throw new IllegalArgumentException(field.name() + " must be one of "
        + String.join(", ", field.choices()));
  }

  private static boolean bool(Field field, String text) {
    switch (text.toLowerCase(Locale.ROOT)) {
      case "true", "yes", "y" -> {
        return true;
      }
      case "false", "no", "n" -> {
        return false;
      }
      default -> throw new IllegalArgumentException(field.name() + " must be true or false");
    }
  }
}
