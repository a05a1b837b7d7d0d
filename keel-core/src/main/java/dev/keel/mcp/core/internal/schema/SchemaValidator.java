package dev.keel.mcp.core.internal.schema;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import dev.keel.mcp.core.Text;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Validates JSON values against a JSON Schema, 2020-12 unless the schema's {@code $schema} says
 * otherwise.
 *
 * <p>Remote references are never fetched (spec 2026-07-28: never fetch a network {@code $ref} by
 * default): a schema that needs one fails to compile and is rejected at registration.
 */
public final class SchemaValidator {

  private static final int MAX_REPORTED = 10;

  private final Schema schema;

  private SchemaValidator(Schema schema) {
    this.schema = schema;
  }

  /** Returns a registry that resolves only the bundled meta-schemas. */
  public static SchemaRegistry newRegistry() {
    // x-mcp-header (SEP-2243) is MCP's own annotation: known, so the validator neither warns
    // about it nor treats it as an assertion.
    Dialect dialect = Dialect.builder(Dialects.getDraft202012())
        .keyword(new AnnotationKeyword("x-mcp-header")).build();
    return SchemaRegistry.withDefaultDialect(dialect,
        b -> b.schemaLoader(l -> l.fetchRemoteResources(false)));
  }

  /**
   * Compiles a schema.
   *
   * @return empty when the schema names a dialect the validator does not know (it is then
   *     served verbatim but not enforced; the caller logs that)
   * @throws IllegalArgumentException when the schema is invalid
   */
  public static Optional<SchemaValidator> compile(SchemaRegistry registry, ObjectNode schema,
      String owner) {
    JsonNode dialect = schema.get("$schema");
    if (dialect != null && (!dialect.isString()
        || SpecificationVersion.fromDialectId(dialect.asString()).isEmpty())) {
      return Optional.empty();
    }
    try {
      Schema compiled = registry.getSchema(schema);
      compiled.initializeValidators();
      return Optional.of(new SchemaValidator(compiled));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(owner + ": invalid JSON Schema: " + e.getMessage(), e);
    }
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
