package dev.keel.mcp.core.jsonschema;

import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import com.networknt.schema.dialect.Dialect;
import com.networknt.schema.dialect.Dialects;
import com.networknt.schema.keyword.AnnotationKeyword;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Compiles JSON Schemas, 2020-12 unless a schema's {@code $schema} says otherwise, into
 * {@link JsonSchemaValidator}s. The schemas one compiler compiles share its registry, so one
 * server's (or one client's) schemas never resolve another's {@code $id}s.
 *
 * <p>Remote references are never fetched (spec 2026-07-28: never fetch a network {@code $ref} by
 * default): a schema that needs one fails to compile and is rejected at registration.
 */
public final class JsonSchemaCompiler {

  /** Built on the first schema {@link SimpleSchema} does not take; guarded by {@code this}. */
  private SchemaRegistry registry;

  /** Creates a compiler that resolves only the bundled meta-schemas. */
  public JsonSchemaCompiler() {}

  private synchronized SchemaRegistry registry() {
    if (registry == null) {
      // x-mcp-header (SEP-2243) is MCP's own annotation: known, so the validator neither warns
      // about it nor treats it as an assertion.
      Dialect dialect = Dialect.builder(Dialects.getDraft202012())
          .keyword(new AnnotationKeyword("x-mcp-header")).build();
      registry = SchemaRegistry.withDefaultDialect(dialect,
          b -> b.schemaLoader(l -> l.fetchRemoteResources(false)));
    }
    return registry;
  }

  /**
   * Compiles a schema.
   *
   * @param owner what the schema belongs to, named in the error (for example
   *     {@code "tool echo inputSchema"})
   * @return empty when the schema names a dialect the validator does not know (it is then
   *     served verbatim but not enforced; the caller logs that)
   * @throws IllegalArgumentException when the schema is invalid
   */
  public Optional<JsonSchemaValidator> compile(ObjectNode schema, String owner) {
    JsonNode dialect = schema.get("$schema");
    if (dialect != null && (!dialect.isString()
        || SpecificationVersion.fromDialectId(dialect.asString()).isEmpty())) {
      return Optional.empty();
    }
    SimpleSchema simple = SimpleSchema.compile(schema);
    if (simple != null) {
      return Optional.of(new JsonSchemaValidator(simple));
    }
    return compileGeneral(schema, owner);
  }

  /** Compiles with the general validator whatever the schema (for tests, and what is not simple). */
  Optional<JsonSchemaValidator> compileGeneral(ObjectNode schema, String owner) {
    try {
      Schema compiled = registry().getSchema(schema);
      compiled.initializeValidators();
      return Optional.of(new JsonSchemaValidator(compiled));
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(owner + ": invalid JSON Schema: " + e.getMessage(), e);
    }
  }
}
