package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StdioTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The stdio server as a desktop client runs it: a real process started with a command line,
 * answering over its stdin and stdout, and {@code desktop-config.json} naming that command.
 */
class StdioDemoTest {

  @Test
  void aClientStartsTheServerAsAProcessAndCallsItsTools() {
    List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", System.getProperty("java.class.path"), "example.StdioDemo");
    try (McpClient client = McpClient.builder(StdioTransport.builder(command).build())
        .connect()) {
      assertThat(client.listTools()).extracting(Tool::name)
          .containsExactlyInAnyOrder("remember", "notes");
      client.callTool("remember", McpJson.object().put("note", "buy milk"));
      client.callTool("remember", McpJson.object().put("note", "call Ada"));
      assertThat(((TextContent) client.callTool("notes", McpJson.object()).content().get(0))
          .text()).isEqualTo("buy milk\ncall Ada");
    }
  }

  @Test
  void theDesktopConfigurationStartsThisClass() throws Exception {
    JsonNode config = McpJson.standard().parse(Files.readString(Path.of("desktop-config.json")));
    JsonNode server = config.get("mcpServers").get("keel-notes");
    assertThat(server.get("command").asString()).isEqualTo("java");
    List<String> args = new java.util.ArrayList<>();
    server.get("args").forEach(a -> args.add(a.asString()));
    assertThat(args.get(args.size() - 1)).isEqualTo(StdioDemo.class.getName());
    assertThat(args.get(1)).contains("target/classes").contains("target/lib/*");
  }
}
