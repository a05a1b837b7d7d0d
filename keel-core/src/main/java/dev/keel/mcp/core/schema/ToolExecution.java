package dev.keel.mcp.core.schema;

/**
 * How a tool may run (2025-11-25 tasks utility).
 *
 * @param taskSupport {@code "forbidden"}, {@code "optional"} or {@code "required"}, or null
 */
public record ToolExecution(String taskSupport) {}
