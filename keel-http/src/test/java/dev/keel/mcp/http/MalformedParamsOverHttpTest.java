package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 14, finding 12 at the HTTP edge: the stateless header gate reads the body field that
 * {@code Mcp-Name} mirrors, and a field of the wrong JSON type is a malformed parameter (400,
 * -32602), never a conversion that throws (500, -32603). The legacy {@code logging/setLevel}
 * with an object level is -32602 over HTTP too.
 */
class MalformedParamsOverHttpTest {

  static McpServer server;
  static McpHttpServer http;

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("echo").build(), (ctx, args) -> CallToolResult.text("hi"))
        .build();
    http = McpHttpServer.builder(server).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  static int code(RawHttp.Response r) {
    JsonNode error = McpJson.standard().parse(r.body()).get("error");
    assertThat(error).as("an error in %s", r.body()).isNotNull();
    return error.get("code").asInt();
  }

  @Test
  void aNamedFieldOfTheWrongTypeIsInvalidParamsAtTheHeaderGate() throws IOException {
    String meta = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}";
    String[][] methods = {{"tools/call", "name"}, {"prompts/get", "name"},
        {"resources/read", "uri"}, {"tasks/get", "taskId"}, {"tasks/cancel", "taskId"}};
    for (String[] m : methods) {
      for (String wrong : new String[] {"{}", "[]", "1", "true", "{\"a\":[1]}"}) {
        String body = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"" + m[0] + "\",\"params\":{\""
            + m[1] + "\":" + wrong + "," + meta + "}}";
        RawHttp.Response r = RawHttp.exchange(http.port(), "POST", "/mcp",
            Map.of("Content-Type", "application/json",
                "Accept", "application/json, text/event-stream",
                "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", m[0], "Mcp-Name", "x"),
            body);
        assertThat(r.status()).as("%s with %s = %s", m[0], m[1], wrong).isEqualTo(400);
        assertThat(code(r)).as("%s with %s = %s", m[0], m[1], wrong).isEqualTo(-32602);
      }
    }
  }

  @Test
  void anObjectLogLevelIsInvalidParamsInALegacySession() throws IOException {
    Map<String, String> headers = Map.of("Content-Type", "application/json",
        "Accept", "application/json, text/event-stream");
    RawHttp.Response init = RawHttp.exchange(http.port(), "POST", "/mcp", headers,
        HttpGateTest.INIT);
    String session = init.header("mcp-session-id");
    assertThat(session).isNotBlank();
    for (String wrong : new String[] {"{}", "[]", "[\"info\"]", "{\"level\":\"info\"}"}) {
      RawHttp.Response r = RawHttp.exchange(http.port(), "POST", "/mcp",
          Map.of("Content-Type", "application/json", "Accept", "application/json",
              "Mcp-Session-Id", session, "MCP-Protocol-Version", "2025-11-25"),
          "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"logging/setLevel\",\"params\":{\"level\":"
              + wrong + "}}");
      assertThat(r.status()).as(wrong).isEqualTo(200);
      assertThat(code(r)).as(wrong).isEqualTo(-32602);
    }
  }
}
