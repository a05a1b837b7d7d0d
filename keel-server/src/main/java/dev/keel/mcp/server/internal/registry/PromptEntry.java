package dev.keel.mcp.server.internal.registry;

import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.server.PromptHandler;

/**
 * A registered prompt.
 *
 * @param prompt the prompt as listed
 * @param handler what renders it
 */
public record PromptEntry(Prompt prompt, PromptHandler handler) {}
