package dev.keel.mcp.test;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.server.McpServer;
import org.junit.jupiter.api.AfterAll;

/**
 * A server held in an {@link McpTestServer} field is shared by the runs and left open: the test
 * owns it.
 */
class KeelExtensionFieldTest {

  @McpTestServer
  static final McpServer SERVER = KitServer.create();

  @McpTest
  void everyRunGetsTheFieldsServer(McpServer server, McpTestClient client) {
    assertThat(server).isSameAs(SERVER);
    assertThat(client.call("echo", "{\"text\":\"shared\"}")).hasText("shared");
  }

  @AfterAll
  static void theServerIsStillOpenAfterTheRuns() {
    try (McpTestClient client = McpTestClient.builder(SERVER).era(Era.LEGACY).connect()) {
      assertThat(client.call("echo", "{\"text\":\"open\"}")).hasText("open");
    } finally {
      SERVER.close();
    }
  }
}
