package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.Tool;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The stateless era on the engine: {@code _meta} decides the era, results are shaped for it,
 * and multi-round-trip {@code requestState}s are sealed, bound and refused when abused.
 */
class ModernEraTest {

  static final McpJson JSON = McpJson.standard();
  static final String META = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";

  McpServer server;
  final AtomicInteger greetRuns = new AtomicInteger();

  @BeforeEach
  void start() {
    server = McpServer.builder().name("modern").version("1")
        .requestStateTtl(Duration.ofMillis(400))
        .tool(Tool.builder("greet").build(), (ctx, args) -> {
          greetRuns.incrementAndGet();
          ObjectNode schema = JSON.parseObject("{\"type\":\"object\",\"properties\":"
              + "{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
          String name = ctx.elicit("user_name", ElicitRequest.form("Name?", schema)).content()
              .get("name").asString();
          return CallToolResult.text("Hello, " + name + "!");
        })
        .tool(Tool.builder("other").build(), (ctx, args) -> {
          ctx.elicit("user_name", ElicitRequest.form("Name?", JSON.parseObject(
              "{\"type\":\"object\",\"properties\":{}}")));
          return CallToolResult.text("other done");
        })
        .build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Optional<JsonRpcMessage> call(Principal principal, long id, String tool, String extra) {
    ObjectNode params = JSON.parseObject("{\"name\":\"" + tool + "\",\"arguments\":{},"
        + "\"_meta\":" + META + extra + "}");
    return server.engine().handle(null, principal,
        new JsonRpcRequest(RequestId.of(id), "tools/call", params), CollectingStream.open());
  }

  static JsonNode result(Optional<JsonRpcMessage> response) {
    assertThat(response).get().isInstanceOf(JsonRpcResponse.class);
    return ((JsonRpcResponse) response.get()).result();
  }

  static int errorCode(Optional<JsonRpcMessage> response) {
    assertThat(response).get().isInstanceOf(JsonRpcErrorResponse.class);
    return ((JsonRpcErrorResponse) response.get()).error().code();
  }

  static String answer(String state) {
    return ",\"requestState\":" + JSON.write(state) + ",\"inputResponses\":{\"user_name\":"
        + "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}}";
  }

  @Test
  void firstAttemptAsksAndTheRetryWithTheAnswerCompletes() {
    JsonNode first = result(call(Principal.local(), 1, "greet", ""));
    assertThat(first.get("resultType").asString()).isEqualTo("input_required");
    assertThat(first.at("/inputRequests/user_name/method").asString())
        .isEqualTo("elicitation/create");
    String state = first.get("requestState").asString();

    JsonNode done = result(call(Principal.local(), 2, "greet", answer(state)));
    assertThat(done.get("resultType").asString()).isEqualTo("complete");
    assertThat(done.at("/content/0/text").asString()).isEqualTo("Hello, Ada!");
    assertThat(done.at("/_meta/io.modelcontextprotocol~1serverInfo/name").asString())
        .isEqualTo("modern");
    assertThat(greetRuns).hasValue(2);
  }

  @Test
  void tamperedRequestStateIsRefused() {
    String state = result(call(Principal.local(), 1, "greet", "")).get("requestState")
        .asString();
    String payload = state.substring(0, state.indexOf('.'));
    String forged = new String(Base64.getUrlDecoder().decode(payload))
        .replace("\"r\":2", "\"r\":1");
    String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(forged.getBytes())
        + state.substring(state.indexOf('.'));
    assertThat(errorCode(call(Principal.local(), 2, "greet", answer(tampered))))
        .isEqualTo(-32602);
    assertThat(errorCode(call(Principal.local(), 3, "greet", answer(state + "-TAMPERED"))))
        .isEqualTo(-32602);
    assertThat(greetRuns).as("a refused state never reaches the handler").hasValue(1);
  }

  @Test
  void expiredRequestStateIsRefused() throws InterruptedException {
    String state = result(call(Principal.local(), 1, "greet", "")).get("requestState")
        .asString();
    Thread.sleep(600);
    assertThat(errorCode(call(Principal.local(), 2, "greet", answer(state))))
        .isEqualTo(-32602);
  }

  @Test
  void requestStateOfAnotherPrincipalIsRefused() {
    String state = result(call(Principal.of("alice"), 1, "greet", "")).get("requestState")
        .asString();
    assertThat(errorCode(call(Principal.of("bob"), 2, "greet", answer(state))))
        .isEqualTo(-32602);
    assertThat(result(call(Principal.of("alice"), 3, "greet", answer(state)))
        .at("/content/0/text").asString()).isEqualTo("Hello, Ada!");
  }

  @Test
  void requestStateReplayedOnAnotherToolIsRefused() {
    String state = result(call(Principal.local(), 1, "greet", "")).get("requestState")
        .asString();
    assertThat(errorCode(call(Principal.local(), 2, "other", answer(state))))
        .isEqualTo(-32602);
  }

  @Test
  void requestStateSealedByAnotherServerIsRefusedUnlessTheKeyIsShared() {
    byte[] key = new byte[32];
    key[0] = 7;
    McpServer first = McpServer.builder().requestStateKey(key)
        .tool(Tool.builder("greet").build(), (ctx, args) -> CallToolResult.text(
            ctx.elicit("user_name", ElicitRequest.form("Name?", JSON.parseObject(
                "{\"type\":\"object\",\"properties\":{}}"))).action().name()))
        .build();
    McpServer sharing = McpServer.builder().requestStateKey(key)
        .tool(Tool.builder("greet").build(), (ctx, args) -> CallToolResult.text("shared ok"))
        .build();
    try {
      ObjectNode params = JSON.parseObject("{\"name\":\"greet\",\"_meta\":" + META + "}");
      String state = ((JsonRpcResponse) first.engine().handle(null, Principal.local(),
          new JsonRpcRequest(RequestId.of(1), "tools/call", params), CollectingStream.open())
          .orElseThrow()).result().get("requestState").asString();
      ObjectNode retry = JSON.parseObject("{\"name\":\"greet\",\"_meta\":" + META
          + answer(state) + "}");
      assertThat(errorCode(server.engine().handle(null, Principal.local(),
          new JsonRpcRequest(RequestId.of(2), "tools/call", retry), CollectingStream.open())))
          .as("a random per-process key refuses another process's state").isEqualTo(-32602);
      assertThat(sharing.engine().handle(null, Principal.local(),
          new JsonRpcRequest(RequestId.of(3), "tools/call", retry), CollectingStream.open()))
          .get().isInstanceOf(JsonRpcResponse.class);
    } finally {
      first.close();
      sharing.close();
    }
  }

  @Test
  void undeclaredCapabilityIsMissingRequiredClientCapability() {
    ObjectNode params = JSON.parseObject("{\"name\":\"greet\",\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
    Optional<JsonRpcMessage> response = server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of(1), "tools/call", params), CollectingStream.open());
    assertThat(errorCode(response)).isEqualTo(-32021);
    assertThat(((JsonRpcErrorResponse) response.get()).error().data()
        .at("/requiredCapabilities/elicitation").isObject()).isTrue();
  }

  @Test
  void legacyOnlyMethodsAreUnknownToStatelessRequestsAndResultsCarryResultType() {
    for (String method : new String[] {"initialize", "ping", "logging/setLevel",
        "resources/subscribe", "resources/unsubscribe"}) {
      ObjectNode params = JSON.parseObject("{\"_meta\":" + META + ",\"uri\":\"x\"}");
      assertThat(errorCode(server.engine().handle(null, Principal.local(),
          new JsonRpcRequest(RequestId.of(1), method, params), CollectingStream.open())))
          .as(method).isEqualTo(-32601);
    }
    JsonNode list = result(server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of(2), "tools/list", JSON.parseObject("{\"_meta\":"
            + META + "}")), CollectingStream.open()));
    assertThat(list.get("resultType").asString()).isEqualTo("complete");
    assertThat(list.get("ttlMs").isIntegralNumber()).isTrue();
    assertThat(list.get("cacheScope").asString()).isIn("public", "private");
  }

  @Test
  void missingMetaAndUnsupportedVersionGetTheirModernErrors() {
    ObjectNode noCaps = JSON.parseObject("{\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}");
    assertThat(errorCode(server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of(1), "server/discover", noCaps), CollectingStream.open())))
        .isEqualTo(-32602);
    ObjectNode future = JSON.parseObject("{\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2099-01-01\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}");
    Optional<JsonRpcMessage> unsupported = server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of(2), "server/discover", future), CollectingStream.open());
    assertThat(errorCode(unsupported)).isEqualTo(-32022);
    assertThat(((JsonRpcErrorResponse) unsupported.get()).error().data().toString())
        .contains("2026-07-28").contains("2099-01-01");
  }

  /** A stream that can be held open, as an HTTP or stdio stream can. */
  static class HoldingStream implements dev.keel.mcp.server.transport.RequestStream {
    final java.util.List<JsonRpcMessage> messages =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    final java.util.concurrent.atomic.AtomicBoolean released =
        new java.util.concurrent.atomic.AtomicBoolean();

    @Override
    public boolean send(JsonRpcMessage message) {
      return messages.add(message);
    }

    @Override
    public boolean hold(Runnable onGone) {
      return true;
    }

    @Override
    public void finish(Optional<JsonRpcMessage> answer) {}

    @Override
    public void closeForPolling() {}

    @Override
    public void release() {}
  }

  @Test
  void listenAcknowledgesAndTagsListChangesWithItsSubscriptionId() {
    HoldingStream stream = new HoldingStream();
    ObjectNode params = JSON.parseObject("{\"notifications\":{\"toolsListChanged\":true,"
        + "\"bogusKind\":true},\"_meta\":" + META + "}");
    Optional<JsonRpcMessage> response = server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of("sub-1"), "subscriptions/listen", params), stream);
    assertThat(response).isEmpty();
    JsonRpcNotification ack = (JsonRpcNotification) stream.messages.get(0);
    assertThat(ack.method()).isEqualTo("notifications/subscriptions/acknowledged");
    assertThat(ack.params().at("/notifications").toString())
        .isEqualTo("{\"toolsListChanged\":true}");
    server.addPrompt(dev.keel.mcp.core.schema.Prompt.of("p", "d"), (c, a) -> null);
    server.addTool(Tool.builder("late").build(), (c, a) -> CallToolResult.text("x"));
    assertThat(stream.messages).hasSize(2);
    JsonRpcNotification changed = (JsonRpcNotification) stream.messages.get(1);
    assertThat(changed.method()).isEqualTo("notifications/tools/list_changed");
    assertThat(changed.params().at("/_meta/io.modelcontextprotocol~1subscriptionId")
        .asString()).isEqualTo("sub-1");
  }

  @Test
  void shutdownEndsASubscriptionWithACancellationAndAFinalResult() {
    HoldingStream stream = new HoldingStream() {
      @Override
      public void release() {
        released.set(true);
      }
    };
    ObjectNode params = JSON.parseObject("{\"notifications\":{\"toolsListChanged\":true},"
        + "\"_meta\":" + META + "}");
    assertThat(server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of(41), "subscriptions/listen", params), stream)).isEmpty();

    server.close();

    assertThat(stream.messages).hasSize(3);
    JsonRpcNotification cancelled = (JsonRpcNotification) stream.messages.get(1);
    assertThat(cancelled.method()).isEqualTo("notifications/cancelled");
    assertThat(cancelled.params().get("requestId").asLong()).isEqualTo(41);
    JsonRpcResponse last = (JsonRpcResponse) stream.messages.get(2);
    assertThat(last.id()).isEqualTo(RequestId.of(41));
    assertThat(last.result().get("resultType").asString()).isEqualTo("complete");
    assertThat(stream.released).isTrue();
  }
}
