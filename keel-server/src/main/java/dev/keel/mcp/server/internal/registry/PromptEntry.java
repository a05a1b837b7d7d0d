package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.server.PromptHandler;

/**
 * A registered prompt.
 *
 * @param prompt the prompt as listed
 * @param handler what renders it
 * @param requiredScopes the OAuth scopes a caller needs to see and get it
 */
public record PromptEntry(Prompt prompt, PromptHandler handler,
    java.util.Set<String> requiredScopes) {

  /** Copies the scopes; none means anyone may get it. */
  public PromptEntry {
    requiredScopes = Scopes.copyOf(requiredScopes);
  }

  /** A prompt anyone may get. */
  public PromptEntry(Prompt prompt, PromptHandler handler) {
    this(prompt, handler, java.util.Set.of());
  }
}
