package dev.keel.mcp.server;

import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.Tool;

/** One thing a builder was asked to register, kept in order until {@code build()}. */
sealed interface Registration {

  record OfTool(Tool tool, ToolOptions options, ToolHandler handler) implements Registration {}

  record OfAnnotated(Object instance) implements Registration {}

  record OfResource(Resource resource, ResourceHandler handler, java.util.Set<String> scopes)
      implements Registration {}

  record OfTemplate(ResourceTemplate template, ResourceTemplateHandler handler,
      java.util.Set<String> scopes) implements Registration {}

  record OfPrompt(Prompt prompt, PromptHandler handler, java.util.Set<String> scopes)
      implements Registration {}

  record OfCompletion(CompletionReference ref, CompletionHandler handler)
      implements Registration {}
}
