package dev.keel.mcp.client.internal;

import dev.keel.mcp.core.protocol.HeaderMirror;
import dev.keel.mcp.core.jsonschema.JsonSchemaCompiler;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.jsonschema.JsonSchemaValidator;
import dev.keel.mcp.core.schema.Tool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

/**
 * The tools the server listed last, with their compiled input schemas: what a call is checked
 * against before it is sent, and where the {@code x-mcp-header} arguments of a call are found.
 *
 * <p>Schemas are compiled without fetching anything: a {@code $ref} to a network URI is never
 * dereferenced (SEP-2106). A schema that cannot be compiled that way is left unchecked here; the
 * server still validates.
 */
public final class ToolCatalog {

  private static final Logger LOG = LoggerFactory.getLogger(ToolCatalog.class);

  /** One listed tool. */
  public record Entry(Tool tool, Optional<JsonSchemaValidator> validator) {}

  private final JsonSchemaCompiler schemas = new JsonSchemaCompiler();
  private volatile Map<String, Entry> tools;
  private volatile Map<String, String> refused = Map.of();

  /**
   * Replaces the catalog with a fresh listing and returns the tools a caller may use: a tool
   * whose {@code x-mcp-header} annotations are invalid is left out, and remembered as refused.
   */
  public List<Tool> replace(List<Tool> listed) {
    Map<String, Entry> next = new LinkedHashMap<>();
    Map<String, String> nextRefused = new LinkedHashMap<>();
    List<Tool> usable = new ArrayList<>();
    for (Tool tool : listed) {
      Optional<String> problem = HeaderMirror.invalidAnnotation(tool.inputSchema());
      if (problem.isPresent()) {
        // the problem quotes the server's schema: escaped and capped for the log and for the
        // refusal a later call reports
        String why = Text.safe(problem.get());
        LOG.warn("left out tool {}: {}", Text.safe(tool.name()), why);
        nextRefused.put(tool.name(), why);
        continue;
      }
      next.put(tool.name(), new Entry(tool, compile(tool)));
      usable.add(tool);
    }
    this.tools = next;
    this.refused = nextRefused;
    return List.copyOf(usable);
  }

  private Optional<JsonSchemaValidator> compile(Tool tool) {
    try {
      return schemas.compile(tool.inputSchema(), "tool " + tool.name());
    } catch (IllegalArgumentException e) {
      LOG.debug("the input schema of tool {} is not checked locally: {}", Text.safe(tool.name()),
          Text.safe(e.getMessage()));
      return Optional.empty();
    }
  }

  /** Returns true once a listing was taken. */
  public boolean loaded() {
    return tools != null;
  }

  /** Returns the listed tool with this name. */
  public Optional<Entry> find(String name) {
    Map<String, Entry> now = tools;
    return now == null ? Optional.empty() : Optional.ofNullable(now.get(name));
  }

  /** Returns why the tool was left out of the listing, if it was. */
  public Optional<String> refusal(String name) {
    return Optional.ofNullable(refused.get(name));
  }

  /** Returns what is wrong with {@code arguments} for the tool; empty when fine or unknown. */
  public List<String> check(String name, JsonNode arguments) {
    return find(name).flatMap(Entry::validator).map(v -> v.validate(arguments))
        .orElse(List.of());
  }
}
