package dev.keel.mcp.spring;

import dev.keel.mcp.server.McpServer;

/**
 * Adjusts the {@link McpServer.Builder} the starter builds its server with: tools, resources and
 * prompts made with the builder, observers, stores, anything the {@code keel.*} properties do not
 * cover. Every bean of this type is applied, in {@code @Order}, after the properties and the
 * annotated beans, so a customizer has the last word.
 *
 * <pre>{@code
 * @Bean
 * KeelServerCustomizer echo() {
 *   return builder -> builder.tool(Tool.builder("echo").description("Returns its text")
 *           .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
 *           .build(),
 *       (ctx, args) -> CallToolResult.text(args.path("text").asString("")));
 * }
 * }</pre>
 *
 * <p>Runs once, on the thread that creates the server bean, before the server is built.
 */
@FunctionalInterface
public interface KeelServerCustomizer {

  /** Adjusts {@code builder}. */
  void customize(McpServer.Builder builder);
}
