package dev.keel.mcp.server;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonschema.JsonSchemaCompiler;
import dev.keel.mcp.core.jsonschema.JsonSchemaValidator;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.internal.registry.FeatureRegistry;
import dev.keel.mcp.server.internal.registry.PromptEntry;
import dev.keel.mcp.server.internal.registry.ResourceEntry;
import dev.keel.mcp.server.internal.registry.TemplateEntry;
import dev.keel.mcp.server.internal.registry.ToolEntry;
import dev.keel.mcp.server.internal.registry.UriTemplate;
import dev.keel.mcp.server.internal.schema.AnnotatedCompletions;
import dev.keel.mcp.server.internal.schema.AnnotatedFeatures;
import dev.keel.mcp.server.internal.schema.AnnotatedPrompts;
import dev.keel.mcp.server.internal.schema.AnnotatedResources;
import dev.keel.mcp.server.internal.schema.AnnotatedTools;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns a builder's registrations into registry entries, checking that no two features share a
 * name; it sits in this package because the registrations are the builder's own.
 */
final class FeatureRegistrations {

  private FeatureRegistrations() {}

  /**
   * Registers what the builder was given, in order: tools, annotated objects, resources,
   * templates, prompts and completions, then the annotated completions, which may name a prompt
   * or template registered after them.
   *
   * @throws IllegalArgumentException when two features share a name or one cannot work
   */
  static void register(McpServer.Builder b, FeatureRegistry registry, JsonSchemaCompiler schemas,
      McpJson json) {
    Set<String> toolNames = new HashSet<>();
    List<AnnotatedCompletions.Made> completions = new ArrayList<>();
    for (Registration r : b.registrations) {
      if (r instanceof Registration.OfTool t) {
        unique(toolNames, t.tool().name(), "");
        registry.putTool(toolEntry(schemas, t.tool(), t.options(), t.handler()));
      } else if (r instanceof Registration.OfAnnotated a) {
        AnnotatedFeatures.Scanned scanned = AnnotatedFeatures.scan(a.instance(), json);
        for (AnnotatedTools.Made made : scanned.tools()) {
          unique(toolNames, made.tool().name(), made.source());
          registry.putTool(toolEntry(schemas, made.tool(), made.options(), made.handler()));
        }
        for (AnnotatedResources.MadeResource res : scanned.resources()) {
          putResource(registry, new ResourceEntry(res.resource(), res.handler(), res.scopes()),
              res.source());
        }
        for (AnnotatedResources.MadeTemplate t : scanned.templates()) {
          putTemplate(registry, t.template(), t.handler(), t.scopes(), t.source());
        }
        for (AnnotatedPrompts.MadePrompt p : scanned.prompts()) {
          putPrompt(registry, new PromptEntry(p.prompt(), p.handler(), p.scopes()), p.source());
        }
        completions.addAll(scanned.completions());
      } else if (r instanceof Registration.OfResource res) {
        putResource(registry, new ResourceEntry(res.resource(), res.handler(), res.scopes()), "");
      } else if (r instanceof Registration.OfTemplate t) {
        putTemplate(registry, t.template(), t.handler(), t.scopes(), "");
      } else if (r instanceof Registration.OfPrompt p) {
        putPrompt(registry, new PromptEntry(p.prompt(), p.handler(), p.scopes()), "");
      } else if (r instanceof Registration.OfCompletion c) {
        registry.putCompletion(c.ref(), c.handler());
      }
    }
    // Last, so a completion may name a prompt or template registered after it, by any means.
    AnnotatedCompletions.bind(completions, ref -> declaredArguments(registry, ref))
        .forEach((ref, handler) -> {
          if (registry.completion(ref).isPresent()) {
            throw new IllegalArgumentException("completion registered twice: "
                + AnnotatedCompletions.describe(ref) + " has both a completion(...) handler and "
                + "@McpCompletion methods");
          }
          registry.putCompletion(ref, handler);
        });
  }

  private static Optional<List<String>> declaredArguments(FeatureRegistry registry,
      CompletionReference ref) {
    if (ref instanceof CompletionReference.PromptRef p) {
      return registry.prompt(p.name()).map(e -> e.prompt().arguments() == null ? List.of()
          : e.prompt().arguments().stream().map(PromptArgument::name).toList());
    }
    String uri = ((CompletionReference.ResourceTemplateRef) ref).uri();
    return registry.template(uri).map(e -> e.uriTemplate().variables());
  }

  private static void putResource(FeatureRegistry registry, ResourceEntry entry, String source) {
    if (registry.resource(entry.resource().uri()).isPresent()) {
      throw new IllegalArgumentException("resource registered twice: "
          + entry.resource().uri() + by(source));
    }
    registry.putResource(entry);
  }

  private static void putTemplate(FeatureRegistry registry, ResourceTemplate template,
      ResourceTemplateHandler handler, Set<String> scopes, String source) {
    if (registry.template(template.uriTemplate()).isPresent()) {
      throw new IllegalArgumentException("resource template registered twice: "
          + template.uriTemplate() + by(source));
    }
    registry.putTemplate(new TemplateEntry(template, UriTemplate.parse(template.uriTemplate()),
        handler, scopes));
  }

  private static void putPrompt(FeatureRegistry registry, PromptEntry entry, String source) {
    if (registry.prompt(entry.prompt().name()).isPresent()) {
      throw new IllegalArgumentException("prompt registered twice: " + entry.prompt().name()
          + by(source));
    }
    registry.putPrompt(entry);
  }

  private static void unique(Set<String> names, String name, String source) {
    if (!names.add(name)) {
      throw new IllegalArgumentException("tool registered twice: " + name + by(source));
    }
  }

  /** Names the annotated method a registration came from, for a message. */
  private static String by(String source) {
    return source.isEmpty() ? "" : " (by " + source + ")";
  }

  /** Returns the registry entry of a tool, its schemas compiled. */
  static ToolEntry toolEntry(JsonSchemaCompiler schemas, Tool listed, ToolOptions given,
      ToolHandler handler) {
    // One source of truth for task support: the options when they say, else the listing; the
    // listing then shows what the server does.
    TaskSupport support = given.taskSupport() != null ? given.taskSupport()
        : TaskSupport.of(listed.execution());
    ToolOptions options;
    try {
      options = given.withTaskSupport(support);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("tool " + listed.name() + ": " + e.getMessage(), e);
    }
    Tool tool = support == TaskSupport.of(listed.execution()) && (listed.execution() != null
        || support == TaskSupport.FORBIDDEN) ? listed
        : new Tool(listed.name(), listed.title(), listed.description(), listed.inputSchema(),
            listed.outputSchema(), listed.annotations(), listed.icons(), support.execution(),
            listed.meta());
    String owner = "tool " + tool.name();
    return new ToolEntry(tool, handler, options,
        compiled(schemas, tool.inputSchema(), owner + " inputSchema"),
        tool.outputSchema() == null ? Optional.empty()
            : compiled(schemas, tool.outputSchema(), owner + " outputSchema"));
  }

  private static Optional<JsonSchemaValidator> compiled(JsonSchemaCompiler schemas, ObjectNode schema,
      String owner) {
    Optional<JsonSchemaValidator> validator = schemas.compile(schema, owner);
    if (validator.isEmpty()) {
      org.slf4j.LoggerFactory.getLogger(FeatureRegistrations.class)
          .warn("{}: unknown $schema dialect, values will not be validated", owner);
    }
    return validator;
  }
}
