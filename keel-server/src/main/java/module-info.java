/**
 * The Keel MCP server: the feature registry, the dispatcher and handler context, sessions and
 * their owners, cancellation, MRTR, subscriptions and tasks, the transport SPI and the stdio
 * transport. Annotated features ({@code @McpTool}, {@code @McpResource}, {@code @McpPrompt},
 * {@code @McpCompletion}) are found by reflection: a module that holds them opens their package
 * to this one (and to {@code tools.jackson.databind}, which binds their records).
 */
module dev.keel.mcp.server {
  requires transitive dev.keel.mcp.core;
  requires com.github.benmanes.caffeine;
  requires org.slf4j;

  exports dev.keel.mcp.server;
  exports dev.keel.mcp.server.cluster;
  exports dev.keel.mcp.server.spi;
  exports dev.keel.mcp.server.stdio;
  exports dev.keel.mcp.server.transport;
}
