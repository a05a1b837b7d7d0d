package dev.keel.mcp.core.jsonschema;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import dev.keel.mcp.core.Text;
import java.util.List;
import tools.jackson.databind.JsonNode;

/**
 * One compiled JSON Schema: validates values against it. Made by {@link JsonSchemaCompiler}.
 */
public final class JsonSchemaValidator {

  private static final int MAX_REPORTED = 10;

  private final Schema schema;

  JsonSchemaValidator(Schema schema) {
    this.schema = schema;
  }

  /** Returns peer-safe descriptions of what is wrong with {@code value}; empty when valid. */
  public List<String> validate(JsonNode value) {
    List<Error> errors = schema.validate(value);
    if (errors.isEmpty()) {
      return List.of(); // the usual case, on every call: no stream pipeline built for nothing
    }
    return errors.stream().limit(MAX_REPORTED).map(e -> Text.safe(e.getMessage())).toList();
  }
}
