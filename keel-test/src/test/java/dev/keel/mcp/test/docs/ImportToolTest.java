package dev.keel.mcp.test.docs;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.test.McpTest;
import dev.keel.mcp.test.McpTestClient;
import dev.keel.mcp.test.McpTestServer;
import dev.keel.mcp.test.McpTestTarget;
import dev.keel.mcp.test.Replies;
import dev.keel.mcp.test.ToolCall;
import java.time.Duration;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

class ImportToolTest {

  /** The server under test; an application would build it in its own code. */
  @McpTestServer
  static McpServer server() {
    ObjectNode askTable = McpJson.standard().parseObject("{\"type\":\"object\","
        + "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
    return McpServer.builder().name("importer").version("1.0.0")
        .tool(Tool.builder("import").description("Imports rows into a table the user names")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"rows\":{\"type\":\"integer\"}},"
                    + "\"required\":[\"rows\"]}")
                .build(),
            (ctx, args) -> {
              int rows = args.path("rows").asInt();
              ElicitResult table = ctx.elicit("table", ElicitRequest.form("Which table?", askTable));
              if (!table.accepted()) {
                return CallToolResult.error("Not imported: no table");
              }
              String name = table.content().get("name").asString();
              for (int i = 1; i <= rows; i++) {
                ctx.progress(i, (double) rows, "row " + i);
              }
              ctx.log(LoggingLevel.INFO, "imported " + rows + " rows into " + name);
              return new CallToolResult(List.of(Content.text(rows + " rows imported")),
                  McpJson.object().put("table", name).put("rows", rows), null, null);
            })
        .build();
  }

  @McpTest
  void importsIntoTheTableTheUserNames(McpTestTarget target) {
    McpTestClient client = target.connect(b -> b
        .elicitation(Replies.accept("{\"name\":\"orders\"}"))
        .logLevel(LoggingLevel.INFO));

    ToolCall call = client.call("import", "{\"rows\":3}");

    assertThat(call).succeeded()
        .hasText("3 rows imported")
        .hasStructured("$.table", "orders")
        .hasStructured("$.rows", 3)
        .progress().isMonotonic().hasCount(3).endsAt(3, 3.0);
    assertEquals("Which table?", client.elicitations().get(0).message());
    assertThat(client.notifications())
        .arrives("notifications/message", Duration.ofSeconds(5))
        .hasLog(LoggingLevel.INFO, "imported 3 rows into orders");
  }

  @McpTest
  void importsNothingWhenTheUserDeclines(McpTestTarget target) {
    McpTestClient client = target.connect(b -> b.elicitation(Replies.decline()));

    assertThat(client.call("import", "{\"rows\":3}"))
        .isError()
        .hasText("Not imported: no table")
        .progress().hasCount(0);
  }

  @McpTest
  void cannotAskAClientThatDeclaresNoElicitation(McpTestClient client) {
    assertThat(client.call("import", "{\"rows\":1}")).failedWith(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY);
  }
}
