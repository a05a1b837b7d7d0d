package example;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.test.McpTest;
import dev.keel.mcp.test.McpTestClient;
import dev.keel.mcp.test.McpTestServer;
import java.util.Map;

/** Every kind of annotated feature of {@link Bookshop}, in both eras, in-process and over HTTP. */
class BookshopTest {

  @McpTestServer
  static McpServer server() {
    return Bookshop.server();
  }

  @McpTest
  void everyAnnotatedFeatureWorksAsThePageSays(McpTestClient client) {
    assertThat(client.call("search", "{\"word\":\"Dune\"}")).succeeded()
        .hasStructured("/result/0/price", 1099);
    assertThat(client.call("order", "{\"isbn\":\"9780441013593\"}")).succeeded()
        .hasText("Ordered 1 of Dune");
    assertThat(client.call("order", "{\"isbn\":\"0\"}").error().getMessage())
        .contains("No book 0");
    assertThat(((TextResourceContents) client.mcp().readResource("books://9780141182803")
        .contents().get(0)).text()).contains("\"title\":\"Dubliners\"");
    assertThat(((TextContent) client.mcp().getPrompt("review",
        Map.of("isbn", "9780441013593")).messages().get(0).content()).text())
        .isEqualTo("Write a friendly review of Dune.");
    assertThat(client.mcp().complete(new CompletionReference.PromptRef("review"), "isbn",
        "978044").values()).containsExactly("9780441013593");
  }
}
