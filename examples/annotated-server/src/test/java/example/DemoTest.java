package example;

import static dev.keel.mcp.test.McpAssertions.assertThat;

import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.test.McpTest;
import dev.keel.mcp.test.McpTestClient;
import dev.keel.mcp.test.McpTestServer;
import dev.keel.mcp.test.ToolCall;
import java.time.Instant;

class DemoTest {
  @McpTestServer
  static McpServer server() {
    return Demo.server();
  }

  @McpTest // four runs: legacy and 2026-07-28, in-memory and over HTTP
  void echoesItsText(McpTestClient client) {
    assertThat(client.call("echo", "{\"text\":\"hi\"}")).succeeded().hasText("hi");
  }

  @McpTest
  void tellsTheTimeInUtc(McpTestClient client) {
    ToolCall now = client.call("now");
    assertThat(now).succeeded().textContains("Z");
    Instant.parse(now.text());
  }
}
