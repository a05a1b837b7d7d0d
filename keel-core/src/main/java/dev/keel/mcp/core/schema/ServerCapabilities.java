package dev.keel.mcp.core.schema;

import tools.jackson.databind.node.ObjectNode;

/**
 * What a server offers. Each member is an object whose presence declares the capability.
 *
 * @param prompts {@code prompts} ({@code listChanged}), or null
 * @param resources {@code resources} ({@code subscribe}, {@code listChanged}), or null
 * @param tools {@code tools} ({@code listChanged}), or null
 * @param logging {@code logging}, or null
 * @param completions {@code completions}, or null
 * @param tasks the 2025-11-25 {@code tasks} capability, or null
 * @param experimental experimental capabilities, or null
 * @param extensions 2026-07-28 extensions by identifier, or null
 */
public record ServerCapabilities(ObjectNode prompts, ObjectNode resources, ObjectNode tools,
    ObjectNode logging, ObjectNode completions, ObjectNode tasks, ObjectNode experimental,
    ObjectNode extensions) {}
