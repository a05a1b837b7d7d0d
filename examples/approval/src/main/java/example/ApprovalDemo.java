package example;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A tool that changes something only after the person at the client said yes: the server asks
 * through elicitation ({@code ctx.requireApproval}), which fails closed (a decline, a cancel,
 * a client that cannot ask, a timeout all mean no).
 */
public final class ApprovalDemo {

  /** What the tool deletes from: a stand-in for a real store. */
  public static final Map<String, String> FILES = new ConcurrentHashMap<>(Map.of(
      "draft.txt", "an old draft", "report.pdf", "the quarterly report"));

  public static McpServer server() {
    return McpServer.builder().name("files").version("1.0.0")
        .tool(Tool.builder("delete_file").description("Deletes a file, after you approve it")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}},"
                    + "\"required\":[\"name\"]}")
                .build(),
            (ctx, args) -> {
              String name = args.get("name").asString();
              if (!FILES.containsKey(name)) {
                return CallToolResult.error("No file named " + name);
              }
              if (!ctx.requireApproval("Delete " + name + "? It cannot be undone.")) {
                return CallToolResult.error("Not approved: " + name + " was kept");
              }
              FILES.remove(name);
              return CallToolResult.text("Deleted " + name);
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
