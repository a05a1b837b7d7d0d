package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.ResourceSubscription;
import dev.keel.mcp.client.StdioTransport;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.CompletionReference;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Role;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * The Keel client against the Keel server, in both eras over both transports: every feature of
 * the client's API once, against the real fixture server (in process over HTTP, a subprocess
 * over stdio).
 */
class ClientAgainstKeelTest {

  private static McpHttpServer http;

  @BeforeAll
  static void start() {
    http = McpHttpServer.builder(FixtureServer.create()).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  static Stream<Arguments> targets() {
    return Stream.of(
        Arguments.of("http", Era.AUTO, Era.MODERN),
        Arguments.of("http", Era.LEGACY, Era.LEGACY),
        Arguments.of("stdio", Era.AUTO, Era.MODERN),
        Arguments.of("stdio", Era.LEGACY, Era.LEGACY));
  }

  private static ClientTransport transport(String kind) {
    return kind.equals("http")
        ? StreamableHttpTransport.builder(http.endpoint()).build()
        : StdioTransport.builder(KeelProcess.command("fixtures", "--stdio")).build();
  }

  private static McpClient.Builder client(String kind, Era era, List<String> seen) {
    return McpClient.builder(transport(kind)).era(era)
        .requestTimeout(Duration.ofSeconds(30))
        .elicitation(request -> new ElicitResult(ElicitResult.Action.ACCEPT,
            McpJson.standard().parseObject("{\"username\":\"ada\",\"email\":\"ada@example.com\"}"),
            null))
        .sampling(request -> new CreateMessageResult(Role.ASSISTANT,
            List.of(Content.text("a reply from the host model")), "test-model", "endTurn",
            null))
        .notifications((method, params) -> seen.add(method));
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("targets")
  void everyFeatureWorksInBothErasOverBothTransports(String kind, Era asked, Era expected) {
    List<String> seen = new CopyOnWriteArrayList<>();
    try (McpClient client = client(kind, asked, seen).connect()) {
      assertThat(client.era()).isEqualTo(expected);
      assertThat(client.serverInfo().name()).isNotBlank();

      List<Tool> tools = client.listTools();
      assertThat(tools).extracting(Tool::name).contains("echo", "test_tool_with_progress");

      CallToolResult echoed = client.callTool("echo",
          McpJson.standard().parseObject("{\"text\":\"hello\"}"));
      assertThat(((TextContent) echoed.content().get(0)).text()).isEqualTo("hello");

      assertThatThrownBy(() -> client.callTool("echo",
          McpJson.standard().parseObject("{\"text\":5}")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input schema");

      List<Double> reports = new CopyOnWriteArrayList<>();
      client.callTool("test_tool_with_progress", null,
          CallOptions.defaults().withProgress((p, total, message) -> reports.add(p)));
      assertThat(reports).containsExactly(0.0, 50.0, 100.0);

      CallToolResult elicited = client.callTool("test_elicitation",
          McpJson.standard().parseObject("{\"message\":\"who are you?\"}"));
      assertThat(((TextContent) elicited.content().get(0)).text()).contains("ada@example.com");

      CallToolResult sampled = client.callTool("test_sampling",
          McpJson.standard().parseObject("{\"prompt\":\"hi\"}"));
      assertThat(((TextContent) sampled.content().get(0)).text())
          .contains("a reply from the host model");

      assertThat(client.listResources()).isNotEmpty();
      assertThat(((TextResourceContents) client.readResource("test://static-text").contents()
          .get(0)).text()).isNotEmpty();
      assertThat(client.listResourceTemplates()).isNotEmpty();
      assertThatThrownBy(() -> client.readResource("test://no-such-resource"))
          .isInstanceOf(McpException.class);

      assertThat(client.listPrompts()).isNotEmpty();
      GetPromptResult prompt = client.getPrompt("test_prompt_with_arguments",
          Map.of("arg1", "one", "arg2", "two"));
      assertThat(prompt.messages()).isNotEmpty();
      assertThat(client.complete(new CompletionReference.PromptRef("test_prompt_with_arguments"),
          "arg1", "")).isNotNull();

      try (ResourceSubscription s = client.subscribe("test://watched-resource")) {
        assertThat(s.uri()).isEqualTo("test://watched-resource");
      }

      assertThatThrownBy(() -> client.callTool("sleep",
          McpJson.standard().parseObject("{\"ms\":20000}"),
          CallOptions.defaults().withTimeout(Duration.ofMillis(300))))
          .isInstanceOf(RequestTimeoutException.class);
      // The connection is still good after a cancelled call.
      client.ping();
      ObjectNode args = McpJson.standard().parseObject("{\"text\":\"after\"}");
      assertThat(((TextContent) client.callTool("echo", args).content().get(0)).text())
          .isEqualTo("after");
    }
  }

  /**
   * Calls one after another share one connection, in both eras, when the answers come on event
   * streams. A call that reports progress is answered on a stream the server ends right after
   * the answer; a client that closed the stream at the answer, before that end, made the JDK
   * drop the connection, so every such call paid for a new one.
   */
  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void streamedAnswersLeaveTheConnectionForTheNextCall(Era era) {
    try (McpClient client = McpClient.builder(transport("http")).era(era)
        .requestTimeout(Duration.ofSeconds(30)).connect()) {
      // the first call may still open one (the handshake's connection may be the listening
      // stream's now); from then on each call finds the previous one's connection in the pool
      streamedCall(client);
      long before = http.acceptedConnections();
      for (int i = 0; i < 10; i++) {
        streamedCall(client);
      }
      assertThat(http.acceptedConnections() - before)
          .as("connections opened for 10 calls in a row").isLessThanOrEqualTo(1);
    }
  }

  /** A call whose answer comes on an event stream: it reports progress before it. */
  private static void streamedCall(McpClient client) {
    List<Double> reports = new CopyOnWriteArrayList<>();
    TextContent answer = (TextContent) client.callTool("test_tool_with_progress", null,
        CallOptions.defaults().withProgress((p, total, message) -> reports.add(p)))
        .content().get(0);
    assertThat(answer.text()).startsWith("Progress reported");
    assertThat(reports).as("progress before the answer").containsExactly(0.0, 50.0, 100.0);
  }
}
