package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StdioTransport;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Content;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.CreateMessageResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.Role;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.core.schema.Tool;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * The Keel client against MCP servers written with the official TypeScript SDKs from npm, run as
 * real Node 22 processes: {@code @modelcontextprotocol/sdk} 1.32.2 (legacy era, sessions) over
 * Streamable HTTP and over stdio ({@code ts/legacy-server.mjs}), and
 * {@code @modelcontextprotocol/server} 2.4.0 (stateless 2026-07-28, modern only) over Streamable
 * HTTP ({@code ts/modern-server.mjs}).
 *
 * <p>The two scripts offer the same tools, resources and prompts, so every feature is checked
 * against all three targets with the same assertions: the client hides the era, and the same
 * elicitation handler answers a server-to-client request (legacy) and an {@code input_required}
 * round (modern). The era itself, and what differs between eras, is checked per target.
 */
class TypeScriptServerInteropTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  /** One server the client talks to, with what it must report about itself. */
  enum Target {
    LEGACY_HTTP(Era.LEGACY, "2025-11-25", "ts-legacy-interop", "1.32.2",
        "@modelcontextprotocol/sdk 1.32.2"),
    LEGACY_STDIO(Era.LEGACY, "2025-11-25", "ts-legacy-interop", "1.32.2",
        "@modelcontextprotocol/sdk 1.32.2"),
    MODERN_HTTP(Era.MODERN, "2026-07-28", "ts-modern-interop", "2.4.0",
        "@modelcontextprotocol/server 2.4.0");

    final Era era;
    final String version;
    final String serverName;
    final String serverVersion;
    final String sdk;

    Target(Era era, String version, String serverName, String serverVersion, String sdk) {
      this.era = era;
      this.version = version;
      this.serverName = serverName;
      this.serverVersion = serverVersion;
      this.sdk = sdk;
    }
  }

  private static NodeServer legacyHttp;
  private static NodeServer modernHttp;
  private static Path legacyScript;

  @BeforeAll
  static void startServers() throws Exception {
    NpmTools.ensureInstalled();
    legacyScript = NodeServer.stage("legacy-server.mjs");
    legacyHttp = NodeServer.startHttp("legacy-server.mjs");
    modernHttp = NodeServer.startHttp("modern-server.mjs");
  }

  @AfterAll
  static void stopServers() throws InterruptedException {
    try {
      if (legacyHttp != null) {
        legacyHttp.close();
      }
    } finally {
      if (modernHttp != null) {
        modernHttp.close();
      }
    }
  }

  static Stream<Target> targets() {
    return Stream.of(Target.values());
  }

  /** What the host handlers were asked, in order. */
  private final List<ElicitRequest> elicitations = new CopyOnWriteArrayList<>();
  private final List<CreateMessageRequest> samplings = new CopyOnWriteArrayList<>();

  private static ClientTransport transport(Target target) {
    return switch (target) {
      case LEGACY_HTTP -> StreamableHttpTransport.builder(legacyHttp.endpoint()).build();
      case MODERN_HTTP -> StreamableHttpTransport.builder(modernHttp.endpoint()).build();
      case LEGACY_STDIO -> StdioTransport.builder(NodeServer.command(legacyScript, "--stdio"))
          .directory(NodeServer.STAGE.toFile()).build();
    };
  }

  /**
   * A client with the era left to detection ({@link Era#AUTO}) and host handlers that record
   * what they were asked: the elicitation handler accepts with the name Ada unless the message
   * asks it to decline; the sampling handler answers as the model {@code keel-test-model}.
   */
  private McpClient connect(Target target) {
    return McpClient.builder(transport(target))
        .requestTimeout(TIMEOUT)
        .elicitation(request -> {
          elicitations.add(request);
          if (request.message().contains("decline")) {
            return new ElicitResult(ElicitResult.Action.DECLINE, null, null);
          }
          return new ElicitResult(ElicitResult.Action.ACCEPT,
              McpJson.standard().parseObject("{\"name\":\"Ada\"}"), null);
        })
        .sampling(request -> {
          samplings.add(request);
          String asked = text(request.messages().get(0).content().get(0));
          String reply = asked.startsWith("Greet ") ? "Hi " + asked.substring(6) + "!"
              : "a one-line summary";
          return new CreateMessageResult(Role.ASSISTANT, List.of(Content.text(reply)),
              "keel-test-model", "endTurn", null);
        })
        .connect();
  }

  private static String text(Content content) {
    assertThat(content).isInstanceOf(TextContent.class);
    return ((TextContent) content).text();
  }

  private static String text(CallToolResult result) {
    assertThat(result.isError()).as("isError of %s", result).isNotEqualTo(Boolean.TRUE);
    assertThat(result.content()).hasSize(1);
    return text(result.content().get(0));
  }

  private static JsonNode args(String json) {
    return McpJson.standard().parseObject(json);
  }

  private static String log(Target target) {
    return switch (target) {
      case LEGACY_HTTP -> legacyHttp.log();
      case MODERN_HTTP -> modernHttp.log();
      case LEGACY_STDIO -> "(stdio: stderr goes to the client's log)";
    };
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void detectsTheEraAndDescribesTheServer(Target target) {
    try (McpClient client = connect(target)) {
      assertThat(client.era()).as(log(target)).isEqualTo(target.era);
      assertThat(client.protocolVersion()).isEqualTo(target.version);
      assertThat(client.serverInfo().name()).isEqualTo(target.serverName);
      assertThat(client.serverInfo().version()).isEqualTo(target.serverVersion);
      assertThat(client.instructions()).startsWith("A TypeScript SDK");
      assertThat(client.serverCapabilities().tools()).isNotNull();
      assertThat(client.serverCapabilities().resources()).isNotNull();
      assertThat(client.serverCapabilities().prompts()).isNotNull();
      // Sessions exist only where the era has them: the SDK 1.x HTTP server minted one at
      // initialize; the stateless server never does.
      if (target == Target.LEGACY_HTTP) {
        assertThat(client.transport().sessionId()).isNotBlank();
      } else if (target == Target.MODERN_HTTP) {
        assertThat(client.transport().sessionId()).isNull();
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void listsTheToolsWithTheSchemasTheSdkGenerated(Target target) {
    try (McpClient client = connect(target)) {
      List<Tool> tools = client.listTools();
      assertThat(tools).extracting(Tool::name).contains("add", "count_steps", "ask_name",
          "summarize", "wait_for_cancel", "cancelled_calls");
      Tool add = tools.stream().filter(t -> t.name().equals("add")).findFirst().orElseThrow();
      assertThat(add.description()).isEqualTo("Adds two numbers");
      // zod became JSON Schema in the SDK; the client reads it as the server wrote it.
      assertThat(add.inputSchema().path("type").asString()).isEqualTo("object");
      assertThat(add.inputSchema().path("properties").path("a").path("type").asString())
          .isEqualTo("number");
      assertThat(add.inputSchema().path("required").valueStream().map(JsonNode::asString))
          .containsExactlyInAnyOrder("a", "b");
      assertThat(add.outputSchema().path("properties").has("sum")).isTrue();
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void callsAToolWithArgumentsAndReadsItsStructuredResult(Target target) {
    try (McpClient client = connect(target)) {
      CallToolResult sum = client.callTool("add", args("{\"a\":2,\"b\":40}"));
      assertThat(text(sum)).isEqualTo("2 + 40 = 42");
      assertThat(sum.structuredContent().path("sum").asInt()).isEqualTo(42);

      // The SDK's schema is enforced by the client before anything is sent.
      assertThatThrownBy(() -> client.callTool("add", args("{\"a\":\"two\",\"b\":40}")))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("input schema");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void deliversTheServersProgressReportsInOrder(Target target) {
    try (McpClient client = connect(target)) {
      List<String> reports = new CopyOnWriteArrayList<>();
      CallToolResult counted = client.callTool("count_steps", args("{\"steps\":3}"),
          CallOptions.defaults().withProgress(
              (progress, total, message) -> reports.add(progress + "/" + total + " " + message)));
      assertThat(text(counted)).isEqualTo("counted 3 steps");
      assertThat(reports).containsExactly("1.0/3.0 step 1 of 3", "2.0/3.0 step 2 of 3",
          "3.0/3.0 step 3 of 3");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void answersTheServersElicitation(Target target) {
    try (McpClient client = connect(target)) {
      CallToolResult accepted = client.callTool("ask_name",
          args("{\"question\":\"What is your name?\"}"));
      String greeting = text(accepted);
      assertThat(greeting).startsWith("Hello, Ada!");
      if (target.era == Era.MODERN) {
        // The stateless server got the question back from its own sealed requestState.
        assertThat(greeting).isEqualTo("Hello, Ada! (you were asked: What is your name?)");
      }
      assertThat(elicitations).hasSize(1);
      ElicitRequest asked = elicitations.get(0);
      assertThat(asked.message()).isEqualTo("What is your name?");
      assertThat(asked.requestedSchema().path("properties").path("name").path("type").asString())
          .isEqualTo("string");
      assertThat(asked.requestedSchema().path("required").get(0).asString()).isEqualTo("name");

      CallToolResult declined = client.callTool("ask_name",
          args("{\"question\":\"Please decline this\"}"));
      assertThat(text(declined)).isEqualTo("no name (decline)");
      assertThat(elicitations).hasSize(2);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void answersTheServersSamplingRequest(Target target) {
    try (McpClient client = connect(target)) {
      CallToolResult summary = client.callTool("summarize",
          args("{\"text\":\"MCP has two eras.\"}"));
      assertThat(text(summary)).isEqualTo("keel-test-model says: a one-line summary");
      assertThat(samplings).hasSize(1);
      CreateMessageRequest asked = samplings.get(0);
      assertThat(asked.maxTokens()).isEqualTo(64);
      assertThat(asked.systemPrompt()).isEqualTo("You summarize in one line.");
      assertThat(asked.messages()).hasSize(1);
      assertThat(asked.messages().get(0).role()).isEqualTo(Role.USER);
      assertThat(text(asked.messages().get(0).content().get(0)))
          .isEqualTo("Summarize: MCP has two eras.");
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void listsAndReadsResourcesAndTemplates(Target target) {
    try (McpClient client = connect(target)) {
      assertThat(client.listResources()).extracting(Resource::uri).containsExactlyInAnyOrder(
          "interop://greeting", "interop://items/alpha", "interop://items/beta");
      assertThat(client.listResourceTemplates()).extracting(ResourceTemplate::uriTemplate)
          .containsExactly("interop://items/{id}");

      TextResourceContents greeting = (TextResourceContents) client
          .readResource("interop://greeting").contents().get(0);
      assertThat(greeting.uri()).isEqualTo("interop://greeting");
      assertThat(greeting.mimeType()).isEqualTo("text/plain");
      assertThat(greeting.text()).isEqualTo("Hello from " + target.sdk);

      TextResourceContents item = (TextResourceContents) client
          .readResource("interop://items/beta").contents().get(0);
      assertThat(item.mimeType()).isEqualTo("application/json");
      JsonNode parsed = McpJson.standard().parse(item.text());
      assertThat(parsed.path("id").asString()).isEqualTo("beta");
      assertThat(parsed.path("text").asString()).isEqualTo("the second item");

      assertThatThrownBy(() -> client.readResource("interop://items/gamma"))
          .isInstanceOf(McpException.class);
      // The failed read left the connection usable.
      assertThat(client.readResource("interop://items/alpha").contents()).hasSize(1);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void listsAndGetsPrompts(Target target) {
    try (McpClient client = connect(target)) {
      List<Prompt> prompts = client.listPrompts();
      assertThat(prompts).extracting(Prompt::name).containsExactly("review");
      assertThat(prompts.get(0).arguments()).extracting(PromptArgument::name,
          PromptArgument::required).containsExactlyInAnyOrder(
              tuple("subject", true),
              tuple("tone", false));

      GetPromptResult warm = client.getPrompt("review", Map.of("subject", "Keel", "tone", "warm"));
      assertThat(warm.description()).isEqualTo("Review of Keel");
      assertThat(warm.messages()).hasSize(1);
      assertThat(warm.messages().get(0).role()).isEqualTo(Role.USER);
      assertThat(text(warm.messages().get(0).content())).isEqualTo("Review Keel in a warm tone.");

      GetPromptResult plain = client.getPrompt("review", Map.of("subject", "Jetty"));
      assertThat(text(plain.messages().get(0).content()))
          .isEqualTo("Review Jetty in a neutral tone.");
    }
  }

  /**
   * A call that times out is cancelled at the TypeScript server: legacy with
   * {@code notifications/cancelled}, modern by closing the response stream. Either way the
   * SDK aborts the handler's signal, which the script counts.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("targets")
  void aTimedOutCallIsCancelledAtTheServer(Target target) throws InterruptedException {
    try (McpClient client = connect(target)) {
      int before = Integer.parseInt(text(client.callTool("cancelled_calls", null)));
      assertThatThrownBy(() -> client.callTool("wait_for_cancel", args("{\"ms\":20000}"),
          CallOptions.defaults().withTimeout(Duration.ofMillis(500))))
          .isInstanceOf(RequestTimeoutException.class);
      // The cancellation travels asynchronously; the server has 10 s to see it (the wait
      // itself lasts 20 s, so seeing it sooner can only mean the cancellation arrived).
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      int after = before;
      while (after == before && System.nanoTime() < deadline) {
        Thread.sleep(100);
        after = Integer.parseInt(text(client.callTool("cancelled_calls", null)));
      }
      assertThat(after).as(log(target)).isEqualTo(before + 1);
      // And the connection is still good for the next call.
      assertThat(text(client.callTool("add", args("{\"a\":1,\"b\":1}")))).isEqualTo("1 + 1 = 2");
    }
  }

  /**
   * Modern only: a tool that needs two different answers in two rounds (an elicitation, then a
   * sampling request built from that answer). The state of round one reaches round two only
   * through the {@code requestState} the client echoes, sealed by the SDK's HMAC codec.
   */
  @Test
  void modernCallTakesTwoInputRoundsCarryingItsRequestState() {
    try (McpClient client = connect(Target.MODERN_HTTP)) {
      CallToolResult greeted = client.callTool("greet_with_model", args("{}"));
      assertThat(text(greeted)).isEqualTo("for Ada: Hi Ada!");
      assertThat(elicitations).extracting(ElicitRequest::message)
          .containsExactly("Who is this for?");
      assertThat(samplings).hasSize(1);
      assertThat(text(samplings.get(0).messages().get(0).content().get(0)))
          .isEqualTo("Greet Ada");
      assertThat(samplings.get(0).maxTokens()).isEqualTo(32);
    }
  }

  /**
   * The stateless server was started with {@code legacy: 'reject'}: a client forced into the
   * legacy era cannot fall back to a session there (its {@code initialize} is refused with
   * -32022), which is what makes the MODERN verdicts above mean something: every elicitation and
   * sampling answer it got travelled as an {@code input_required} round.
   */
  @Test
  void theModernServerRefusesTheLegacyHandshake() {
    assertThatThrownBy(() -> McpClient.builder(transport(Target.MODERN_HTTP)).era(Era.LEGACY)
        .requestTimeout(TIMEOUT).connect().close())
        .isInstanceOfSatisfying(McpException.class,
            e -> assertThat(e.code()).isEqualTo(ErrorCodes.UNSUPPORTED_PROTOCOL_VERSION));
  }
}
