package example;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.ToolOptions;

/**
 * A call that takes a while, run as an MCP task: the client gets a task id at once, polls or
 * waits for the result, and may cancel it; the handler is an ordinary blocking method that
 * reports progress and stops when the task is cancelled.
 */
public final class TasksDemo {

  public static McpServer server() {
    return McpServer.builder().name("reports").version("1.0.0")
        .tool(Tool.builder("build_report").description("Builds a report, part by part")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"parts\":{\"type\":\"integer\","
                    + "\"minimum\":1,\"maximum\":100}},\"required\":[\"parts\"]}")
                .build(),
            ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL),
            (ctx, args) -> {
              int parts = args.get("parts").asInt();
              for (int part = 1; part <= parts; part++) {
                ctx.cancellation().throwIfCancelled();
                Thread.sleep(50);                     // the real work would go here
                ctx.progress(part, (double) parts, "part " + part + " of " + parts);
              }
              return CallToolResult.text("report of " + parts + " parts");
            })
        .build();
  }

  public static void main(String[] args) throws Exception {
    try (McpHttpServer http = McpHttpServer.builder(server()).port(8080).start()) {
      System.out.println("listening on " + http.endpoint());
      http.join();
    }
  }
}
