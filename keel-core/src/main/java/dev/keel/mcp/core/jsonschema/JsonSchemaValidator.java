package dev.keel.mcp.core.jsonschema;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import dev.keel.mcp.core.Text;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One compiled JSON Schema: validates values against it. Made by {@link JsonSchemaCompiler}.
 */
public final class JsonSchemaValidator {

  private static final int MAX_REPORTED = 10;

  /** The general validator's schema, or null when {@link #simple} validates. */
  private final Schema schema;
  private final SimpleSchema simple;

  JsonSchemaValidator(Schema schema) {
    this.schema = schema;
    this.simple = null;
  }

  JsonSchemaValidator(SimpleSchema simple) {
    this.schema = null;
    this.simple = simple;
  }

  /** Returns peer-safe descriptions of what is wrong with {@code value}; empty when valid. */
  public List<String> validate(JsonNode value) {
    List<String> messages;
    if (simple != null) {
      messages = new ArrayList<>(0);
      simple.validate(value, "$", messages);
    } else {
      List<Error> errors = schema.validate(value);
      messages = errors.isEmpty() ? List.of() : errors.stream().map(Error::getMessage).toList();
    }
    if (messages.isEmpty()) {
      return List.of(); // the usual case, on every call: no stream pipeline built for nothing
    }
    return messages.stream().limit(MAX_REPORTED).map(Text::safe).toList();
  }

  /** Whether the general validator runs this schema (for tests). */
  boolean general() {
    return schema != null;
  }
}
