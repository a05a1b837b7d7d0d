package dev.keel.cli;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.OAuthAuthorizationCode;
import dev.keel.mcp.client.OAuthClientCredentials;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.Text;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.Tool;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code keel conformance-client URL}: the client the official conformance suite drives. The
 * suite starts a mock server per scenario and runs this command with the mock's URL last and the
 * scenario in {@code MCP_CONFORMANCE_SCENARIO} (its data, if any, in
 * {@code MCP_CONFORMANCE_CONTEXT}). Each scenario does what a host application would do with
 * the public {@link McpClient} API; nothing here bends the library.
 */
@Command(name = "conformance-client", mixinStandardHelpOptions = true,
    description = "The MCP client driven by the conformance suite (reads "
        + "MCP_CONFORMANCE_SCENARIO and MCP_CONFORMANCE_CONTEXT).")
final class ConformanceClientCommand implements Callable<Integer> {

  /** Where this client's metadata document would be served (the suite's expected URL). */
  private static final String CLIENT_METADATA_URL =
      "https://conformance-test.local/client-metadata.json";

  @Parameters(paramLabel = "URL", description = "The scenario server's URL.")
  String url;

  @Override
  public Integer call() {
    String scenario = env("MCP_CONFORMANCE_SCENARIO", "");
    ObjectNode context = parseContext(env("MCP_CONFORMANCE_CONTEXT", "{}"));
    try {
      run(scenario, context);
      return 0;
    } catch (RuntimeException e) {
      System.err.println("conformance-client [" + Text.safe(scenario) + "]: "
          + e.getClass().getSimpleName() + ": " + Text.safe(e.getMessage()));
      return 1;
    }
  }

  private void run(String scenario, ObjectNode context) {
    StreamableHttpTransport.Builder transport = StreamableHttpTransport.builder(URI.create(url));
    oauth(transport, scenario, context);
    if (scenario.equals("sse-retry")) {
      // The scenario measures the resumption of the call's own stream; a listening stream
      // would be a second, unrelated GET.
      transport.listeningStream(false);
    }
    McpClient.Builder builder = McpClient.builder(transport.build())
        .clientInfo("keel-conformance-client", "0.1.0")
        .era(era())
        .requestTimeout(Duration.ofSeconds(30))
        .elicitation(request -> new ElicitResult(ElicitResult.Action.ACCEPT,
            scenario.equals("elicitation-sep1034-client-defaults") ? McpJson.object()
                : McpJson.object().put("confirmed", true), null));
    try (McpClient client = builder.connect()) {
      switch (scenario) {
        case "tools_call" -> {
          List<Tool> tools = client.listTools();
          String name = tools.stream().map(Tool::name).filter("add_numbers"::equals).findFirst()
              .orElseThrow(() -> new IllegalStateException("add_numbers is not offered"));
          client.callTool(name, McpJson.object().put("a", 5).put("b", 3));
        }
        case "elicitation-sep1034-client-defaults" ->
            client.callTool("test_client_elicitation_defaults", McpJson.object());
        case "sse-retry" -> client.callTool("test_reconnection", McpJson.object());
        case "sep-2322-client-request-state" -> {
          client.listTools();
          for (String tool : List.of("test_mrtr_echo_state", "test_mrtr_no_state",
              "test_mrtr_unrelated", "test_mrtr_no_result_type")) {
            client.callTool(tool, McpJson.object());
          }
        }
        case "http-standard-headers" -> everyMethodOnce(client);
        case "http-custom-headers" -> {
          client.listTools();
          for (JsonNode call : context.path("toolCalls")) {
            client.callTool(call.path("name").asString(), withoutNulls(call.get("arguments")));
          }
        }
        case "http-invalid-tool-headers" -> {
          for (Tool tool : client.listTools()) {
            client.callTool(tool.name(), sampleArguments(tool));
          }
        }
        case "json-schema-2020-12-preservation" -> {
          Tool focal = client.listTools().stream()
              .filter(t -> t.name().equals("json_schema_2020_12_tool")).findFirst()
              .orElseThrow(() -> new IllegalStateException("json_schema_2020_12_tool missing"));
          ObjectNode args = McpJson.object();
          args.set("schema", focal.inputSchema());
          client.callTool("json_schema_echo", args);
        }
        default -> {
          List<Tool> tools = client.listTools();
          if (scenario.startsWith("auth/")
              && tools.stream().anyMatch(t -> t.name().equals("test-tool"))) {
            client.callTool("test-tool", McpJson.object());
          }
        }
      }
    }
  }

  /**
   * The authorization a host would configure for the scenario: client credentials where the
   * suite hands them out for that grant, otherwise the authorization-code flow with the
   * pre-registered client the suite names (if any) and this client's metadata document URL.
   */
  private static void oauth(StreamableHttpTransport.Builder transport, String scenario,
      ObjectNode context) {
    if (!scenario.startsWith("auth/")) {
      return;
    }
    String clientId = context.path("client_id").asString(null);
    if (scenario.equals("auth/client-credentials-jwt")) {
      transport.oauth(OAuthClientCredentials.privateKeyJwt(clientId,
          context.path("private_key_pem").asString(),
          context.path("signing_algorithm").asString("ES256")).build());
      return;
    }
    if (scenario.equals("auth/client-credentials-basic")) {
      transport.oauth(OAuthClientCredentials.builder(clientId,
          context.path("client_secret").asString()).build());
      return;
    }
    OAuthAuthorizationCode.Builder flow = OAuthAuthorizationCode.builder(new HeadlessUserStep())
        .clientName("keel-conformance-client")
        .clientMetadataUrl(URI.create(CLIENT_METADATA_URL));
    String secret = context.path("client_secret").asString(null);
    if (clientId != null && secret != null) {
      flow.client(clientId, secret);
    }
    transport.oauth(flow.build());
  }

  /** The suite names the wire it wants; without a name the probe decides. */
  private static Era era() {
    String version = env("MCP_CONFORMANCE_PROTOCOL_VERSION", "");
    if (ProtocolVersion.isModern(version)) {
      return Era.MODERN;
    }
    return ProtocolVersion.isLegacy(version) ? Era.LEGACY : Era.AUTO;
  }

  private static void everyMethodOnce(McpClient client) {
    List<Tool> tools = client.listTools();
    for (Tool tool : tools) {
      client.callTool(tool.name(), sampleArguments(tool));
    }
    List<Resource> resources = client.listResources();
    if (!resources.isEmpty()) {
      client.readResource(resources.get(0).uri());
    }
    List<Prompt> prompts = client.listPrompts();
    if (!prompts.isEmpty()) {
      client.getPrompt(prompts.get(0).name(), Map.of());
    }
  }

  /** Arguments a host would fill in for the required parameters of a tool it is shown. */
  static ObjectNode sampleArguments(Tool tool) {
    ObjectNode args = McpJson.object();
    JsonNode properties = tool.inputSchema().path("properties");
    for (JsonNode required : tool.inputSchema().path("required")) {
      String name = required.asString();
      String type = properties.path(name).path("type").asString("string");
      switch (type) {
        case "integer", "number" -> args.put(name, 1);
        case "boolean" -> args.put(name, true);
        case "object" -> args.putObject(name);
        case "array" -> args.putArray(name);
        default -> args.put(name, "us-west1");
      }
    }
    return args;
  }

  /** The scenario's null arguments mean "not given": a host leaves such fields out. */
  private static ObjectNode withoutNulls(JsonNode arguments) {
    ObjectNode args = McpJson.object();
    if (arguments != null && arguments.isObject()) {
      for (Map.Entry<String, JsonNode> e : arguments.properties()) {
        if (!e.getValue().isNull()) {
          args.set(e.getKey(), e.getValue());
        }
      }
    }
    return args;
  }

  private static ObjectNode parseContext(String text) {
    try {
      return McpJson.standard().parseObject(text);
    } catch (RuntimeException e) {
      return McpJson.object();
    }
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null ? fallback : value;
  }
}
