package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.ElicitationHandler;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Elicitation in both modes, in both eras: the client declares URL mode only when its handler
 * can send the user to a URL, and the server sees what it declared.
 */
class ClientElicitationModesTest {

  private static McpHttpServer http;

  @BeforeAll
  static void start() {
    McpServer server = McpServer.builder().name("modes").version("1")
        .tool(Tool.builder("sign_in").build(), (ctx, args) -> {
          if (!ctx.clientCapabilities().supportsElicitationUrl()) {
            return CallToolResult.text("no url mode");
          }
          ElicitResult answer = ctx.elicit(ElicitRequest.url("Sign in to continue",
              "https://login.example.com/start", "login-1"));
          return CallToolResult.text("url mode: " + answer.action());
        })
        .build();
    http = McpHttpServer.builder(server).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  private static String call(Era era, ElicitationHandler handler) {
    try (McpClient client = McpClient.builder(
            StreamableHttpTransport.builder(http.endpoint()).build())
        .era(era).elicitation(handler).connect()) {
      CallToolResult r = client.callTool("sign_in", McpJson.object());
      return ((TextContent) r.content().get(0)).text();
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void urlModeIsDeclaredAndServedOnlyWhenTheHandlerSupportsIt(Era era) {
    List<String> urls = new CopyOnWriteArrayList<>();
    ElicitationHandler withUrls = new ElicitationHandler() {
      @Override
      public ElicitResult elicit(ElicitRequest request) {
        urls.add(request.url() + " " + request.elicitationId());
        return new ElicitResult(ElicitResult.Action.ACCEPT, null, null);
      }

      @Override
      public boolean supportsUrlMode() {
        return true;
      }
    };
    assertThat(call(era, withUrls)).isEqualTo("url mode: ACCEPT");
    assertThat(urls).containsExactly("https://login.example.com/start login-1");

    ElicitationHandler formsOnly = request -> {
      throw new AssertionError("a form-only client is never asked for a URL");
    };
    assertThat(call(era, formsOnly)).isEqualTo("no url mode");
  }
}
