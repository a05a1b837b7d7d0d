package example;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.TextContent;
import java.net.URI;
import java.time.Duration;

public final class ClientDemo {
  public static String echo(URI server, String text) {
    try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(server).build())
        .elicitation(request -> new ElicitResult(ElicitResult.Action.DECLINE, null, null))
        .connect()) {                                   // finds the era: stateless or session
      CallToolResult result = client.callTool("echo", McpJson.object().put("text", text),
          CallOptions.defaults().withTimeout(Duration.ofSeconds(30))
              .withProgress((done, total, message) -> System.err.println(done + "/" + total)));
      return ((TextContent) result.content().get(0)).text();
    }
  }

  public static void main(String[] args) {
    // ./keel fixtures --port 8765 serves an echo tool to try this against
    URI server = URI.create(args.length > 0 ? args[0] : "http://127.0.0.1:8765/mcp");
    System.out.println(echo(server, args.length > 1 ? args[1] : "hi"));
  }
}
