package dev.keel.cli.host;

import dev.keel.cli.output.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fields of an elicitation form (its {@code requestedSchema}: a flat object of primitive
 * properties), and turning what a person typed into the value each field's type asks for.
 */
final class FormFields {

  /** One field: its name, JSON type, whether it is required, its default and its choices. */
  record Field(String name, String type, boolean required, JsonNode fallback,
      List<String> choices, String description) {

    /** Returns how the field is shown: {@code name (type, required) - description}. */
    String label() {
      StringBuilder b = new StringBuilder(TerminalText.firstLine(name, 60)).append(" (")
          .append(type);
      if (!choices.isEmpty()) {
        b.append(": ").append(TerminalText.firstLine(String.join("|", choices), 120));
      }
      b.append(required ? ", required" : ", optional");
      if (fallback != null) {
        b.append(", default ").append(TerminalText.firstLine(fallback.asString(
            fallback.toString()), 60));
      }
      b.append(')');
      if (description != null && !description.isBlank()) {
        b.append(" - ").append(TerminalText.firstLine(description, 100));
      }
      return b.toString();
    }
  }

  private FormFields() {}

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
      List<String> choices = new ArrayList<>();
      spec.path("enum").forEach(n -> choices.add(n.asString(n.toString())));
      spec.path("oneOf").forEach(n -> {
        if (n.has("const")) {
          choices.add(n.get("const").asString(n.get("const").toString()));
        }
      });
      JsonNode fallback = spec.get("default");
      fields.add(new Field(p.getKey(), spec.path("type").asString("string"),
          required.contains(p.getKey()), fallback == null || fallback.isNull() ? null : fallback,
          choices, spec.path("description").asString(null)));
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
    if (!field.choices().isEmpty() && !field.choices().contains(t)) {
      throw new IllegalArgumentException(field.name() + " must be one of "
          + String.join(", ", field.choices()));
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
