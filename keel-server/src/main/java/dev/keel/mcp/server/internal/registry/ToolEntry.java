package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.ToolHandler;
import dev.keel.mcp.server.ToolOptions;
import dev.keel.mcp.core.jsonschema.JsonSchemaValidator;
import java.util.Optional;

/**
 * A registered tool with its compiled schemas.
 *
 * @param tool the tool as listed
 * @param handler what runs it
 * @param options its timeout, interrupt and approval settings
 * @param input the input validator, empty when the schema's dialect is unknown
 * @param output the output validator, empty when there is no output schema
 */
public record ToolEntry(Tool tool, ToolHandler handler, ToolOptions options,
    Optional<JsonSchemaValidator> input,
    Optional<JsonSchemaValidator> output) {}
