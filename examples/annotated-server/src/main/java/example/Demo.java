package example;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.McpTool;

public final class Demo {
  static final class Clock {
    @McpTool(description = "The current UTC time", readOnly = true)
    String now() {
      return java.time.Instant.now().toString();
    }
  }

  static McpServer server() {
    return McpServer.builder().name("demo").version("1.0.0")
        .toolsFrom(new Clock())
        .tool(Tool.builder("echo").description("Returns its text")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
                .build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .build();
  }

  public static void main(String[] args) throws Exception {
    try (McpHttpServer http = McpHttpServer.builder(server()).port(8080).start()) {
      System.out.println("listening on " + http.endpoint());
      http.join();
    }
  }
}
