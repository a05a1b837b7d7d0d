package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.keel.mcp.core.McpJson;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;
import tools.jackson.databind.node.ObjectNode;

/**
 * A tool the server offers. Its {@code inputSchema} is sent verbatim, whatever JSON Schema
 * 2020-12 keywords it uses.
 *
 * <pre>{@code
 * Tool echo = Tool.builder("echo")
 *     .description("Returns its text")
 *     .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
 *     .build();
 * }</pre>
 *
 * @param name the unique name: 1 to 128 of {@code [A-Za-z0-9_.-]}
 * @param title a display name, or null
 * @param description what it does, or null
 * @param inputSchema the JSON Schema of its arguments (an object schema)
 * @param outputSchema the JSON Schema of its {@code structuredContent}, or null
 * @param annotations behaviour hints, or null
 * @param icons icons, or null
 * @param execution task support, or null
 * @param meta {@code _meta}, or null
 */
public record Tool(String name, String title, String description, ObjectNode inputSchema,
    ObjectNode outputSchema, ToolAnnotations annotations, List<Icon> icons,
    ToolExecution execution, @JsonProperty("_meta") ObjectNode meta) {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,128}");

  /** Checks the name (SEP-986) and that the input schema is present. */
  public Tool {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("tool name must be 1-128 of [A-Za-z0-9_.-]: " + name);
    }
    Objects.requireNonNull(inputSchema, "inputSchema");
    icons = icons == null ? null : List.copyOf(icons);
  }

  /** Returns a builder for a tool with this name. */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /** Builds a {@link Tool}; the input schema defaults to an object with no properties. */
  public static final class Builder {
    private final String name;
    private String title;
    private String description;
    private ObjectNode inputSchema;
    private ObjectNode outputSchema;
    private ToolAnnotations annotations;
    private List<Icon> icons;
    private ToolExecution execution;
    private ObjectNode meta;

    private Builder(String name) {
      this.name = name;
    }

    /** Sets the display name. */
    public Builder title(String value) {
      this.title = value;
      return this;
    }

    /** Sets the description. */
    public Builder description(String value) {
      this.description = value;
      return this;
    }

    /** Sets the input schema. */
    public Builder inputSchema(ObjectNode value) {
      this.inputSchema = value;
      return this;
    }

    /** Sets the input schema from JSON text. */
    public Builder inputSchema(String json) {
      this.inputSchema = McpJson.standard().parseObject(json);
      return this;
    }

    /** Sets the output schema. */
    public Builder outputSchema(ObjectNode value) {
      this.outputSchema = value;
      return this;
    }

    /** Sets the output schema from JSON text. */
    public Builder outputSchema(String json) {
      this.outputSchema = McpJson.standard().parseObject(json);
      return this;
    }

    /** Sets the behaviour hints. */
    public Builder annotations(ToolAnnotations value) {
      this.annotations = value;
      return this;
    }

    /** Sets the icons. */
    public Builder icons(List<Icon> value) {
      this.icons = value;
      return this;
    }

    /** Sets task support: forbidden, optional or required. */
    public Builder execution(ToolExecution value) {
      this.execution = value;
      return this;
    }

    /** Sets {@code _meta}. */
    public Builder meta(ObjectNode value) {
      this.meta = value;
      return this;
    }

    /** Returns the tool. */
    public Tool build() {
      ObjectNode schema = inputSchema;
      if (schema == null) {
        schema = McpJson.object();
        schema.put("type", "object");
        schema.putObject("properties");
      }
      return new Tool(name, title, description, schema, outputSchema, annotations, icons,
          execution, meta);
    }
  }
}
