package dev.keel.conformance;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.util.List;

/**
 * A user's application with Keel's libraries on the module path (run by
 * {@link ModulePathSmokeTest} in its own JVM): a server over HTTP and a client calling it in both
 * eras, with an elicitation, so that Jackson, Jetty and the schema validator do their reflective
 * work across the module boundaries as they would for a modular user.
 */
public final class ModulePathMain {

  private ModulePathMain() {}

  /** Prints one {@code ok} line per era, or fails with an exception. */
  public static void main(String[] args) {
    for (Class<?> library : List.of(McpServer.class, McpHttpServer.class, McpClient.class,
        McpJson.class)) {
      if (!library.getModule().isNamed()) {
        throw new IllegalStateException(library.getName() + " is not in a named module");
      }
    }
    McpServer server = McpServer.builder().name("modular").version("1")
        .tool(Tool.builder("greet").description("Asks for a name and greets it")
            .inputSchema("{\"type\":\"object\",\"properties\":{\"greeting\":"
                + "{\"type\":\"string\"}},\"required\":[\"greeting\"]}").build(),
            (ctx, arguments) -> {
              ElicitResult answer = ctx.elicit("name", ElicitRequest.form("Your name?",
                  McpJson.standard().parseObject("{\"type\":\"object\",\"properties\":"
                      + "{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}")));
              return CallToolResult.text(arguments.path("greeting").asString() + ", "
                  + answer.content().path("name").asString());
            })
        .build();
    try (McpHttpServer http = McpHttpServer.builder(server).port(0).start()) {
      for (Era era : List.of(Era.LEGACY, Era.MODERN)) {
        try (McpClient client = McpClient.builder(
            StreamableHttpTransport.builder(http.endpoint()).build()).era(era)
            .elicitation(request -> new ElicitResult(ElicitResult.Action.ACCEPT,
                McpJson.object().put("name", "Ada"), null))
            .connect()) {
          CallToolResult result = client.callTool("greet",
              McpJson.object().put("greeting", "Hello"));
          System.out.println("ok " + era + ": "
              + ((TextContent) result.content().get(0)).text());
        }
      }
    } finally {
      server.close();
    }
  }
}
