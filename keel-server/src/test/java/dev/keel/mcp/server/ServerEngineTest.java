package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.GetPromptResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Prompt;
import dev.keel.mcp.core.schema.PromptArgument;
import dev.keel.mcp.core.schema.PromptMessage;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.ResourceContents;
import dev.keel.mcp.core.schema.ResourceTemplate;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.ListenerAttachment;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class ServerEngineTest {

  private static final McpJson JSON = McpJson.standard();
  private static final String SECRET = "SECRET-db-password-hunter2";

  private final AtomicLong ids = new AtomicLong(100);
  private final ExecutorService executor = Executors.newCachedThreadPool();
  private final CountDownLatch slowStarted = new CountDownLatch(1);
  private final AtomicBoolean slowInterrupted = new AtomicBoolean();
  private final AtomicReference<String> slowReason = new AtomicReference<>();
  private final AtomicBoolean slowFinished = new AtomicBoolean();

  private McpServer server;
  private ServerEngine engine;
  private ServerSession session;
  private final Collector stream = new Collector();

  /** A request stream or listener that keeps what it is sent. */
  static final class Collector implements MessageStream {
    final List<JsonRpcMessage> messages = new CopyOnWriteArrayList<>();

    @Override
    public boolean send(JsonRpcMessage message) {
      messages.add(message);
      return true;
    }

    List<String> methods() {
      List<String> methods = new ArrayList<>();
      for (JsonRpcMessage m : messages) {
        if (m instanceof JsonRpcNotification n) {
          methods.add(n.method());
        } else if (m instanceof JsonRpcRequest r) {
          methods.add(r.method());
        }
      }
      return methods;
    }
  }

  @BeforeEach
  void buildServer() {
    server = McpServer.builder()
        .name("test-server").version("9.9.9")
        .tool(Tool.builder("echo")
                .description("Returns its text")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
                    + "\"required\":[\"text\"]}")
                .build(),
            (ctx, args) -> CallToolResult.text(args.get("text").asString()))
        .tool(Tool.builder("stats")
                .outputSchema("{\"type\":\"object\",\"properties\":{\"count\":"
                    + "{\"type\":\"integer\"}},\"required\":[\"count\"]}")
                .build(),
            (ctx, args) -> CallToolResult.structured(JSON.parse("{\"count\":3}")))
        .tool(Tool.builder("boom").build(), (ctx, args) -> {
          throw new IllegalStateException(SECRET);
        })
        .tool(Tool.builder("slow").build(), (ctx, args) -> {
          slowStarted.countDown();
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException e) {
            slowInterrupted.set(true);
            slowReason.set(ctx.cancellation().reason());
            throw e;
          }
          slowFinished.set(true);
          return CallToolResult.text("finished");
        })
        .tool(Tool.builder("strict").build(), (ctx, args) -> {
          throw McpErrors.invalidParams("date must be in the future");
        })
        .tool(Tool.builder("liar")
                .outputSchema("{\"type\":\"object\",\"properties\":{\"count\":"
                    + "{\"type\":\"integer\"}},\"required\":[\"count\"]}")
                .build(),
            (ctx, args) -> CallToolResult.structured(JSON.parse("{\"count\":\"three\"}")))
        .tool(Tool.builder("progress").build(), (ctx, args) -> {
          ctx.progress(1, 2.0, "half");
          ctx.progress(1, 2.0, "again");
          ctx.progress(2, 2.0, null);
          ctx.log(LoggingLevel.DEBUG, "hidden at info");
          ctx.log(LoggingLevel.WARNING, "shown");
          return CallToolResult.text("ok");
        })
        .prompt(Prompt.of("forecast", "Weather forecast",
                PromptArgument.required("city", "the city"),
                PromptArgument.optional("days", "how many days")),
            (ctx, arguments) -> GetPromptResult.of(
                PromptMessage.user("Forecast for " + arguments.get("city"))))
        .resource(Resource.of("config://app", "app", null, "text/plain"),
            (ctx, uri) -> ReadResourceResult.of(ResourceContents.text(uri, "text/plain", "v=1")))
        .resourceTemplate(ResourceTemplate.of("weather://{city}", "weather", null, "text/plain"),
            (ctx, uri, vars) -> ReadResourceResult.of(
                ResourceContents.text(uri, "text/plain", "sunny in " + vars.get("city"))))
        .build();
    engine = server.engine();
    session = initialize("2025-06-18");
  }

  @AfterEach
  void closeServer() {
    executor.shutdownNow();
    server.close();
  }

  private ServerSession initialize(String version) {
    InitializeOutcome outcome = engine.initialize(Principal.local(),
        new JsonRpcRequest(RequestId.of(0), "initialize", JSON.parseObject(
            "{\"protocolVersion\":\"" + version + "\",\"capabilities\":{},"
                + "\"clientInfo\":{\"name\":\"test-client\",\"version\":\"1.0\"}}")),
        null);
    assertThat(outcome.response()).isInstanceOf(JsonRpcResponse.class);
    assertThat(outcome.session()).isNotNull();
    return outcome.session();
  }

  private JsonRpcRequest request(String method, String params) {
    return new JsonRpcRequest(RequestId.of(ids.incrementAndGet()), method,
        params == null ? null : JSON.parseObject(params));
  }

  private Optional<JsonRpcMessage> send(ServerSession s, JsonRpcMessage message) {
    return engine.handle(s, Principal.local(), message, stream);
  }

  private JsonRpcMessage answer(String method, String params) {
    JsonRpcRequest request = request(method, params);
    Optional<JsonRpcMessage> response = send(session, request);
    assertThat(response).as("%s must be answered", method).isPresent();
    assertThat(response.get().id()).isEqualTo(request.id());
    return response.get();
  }

  private JsonNode result(String method, String params) {
    JsonRpcMessage response = answer(method, params);
    assertThat(response).as("%s should succeed", method).isInstanceOf(JsonRpcResponse.class);
    return ((JsonRpcResponse) response).result();
  }

  private JsonRpcError error(String method, String params) {
    JsonRpcMessage response = answer(method, params);
    assertThat(response).as("%s should fail", method).isInstanceOf(JsonRpcErrorResponse.class);
    return ((JsonRpcErrorResponse) response).error();
  }

  private static List<String> toolNames(JsonNode listResult) {
    List<String> names = new ArrayList<>();
    listResult.get("tools").forEach(t -> names.add(t.get("name").stringValue()));
    return names;
  }

  @Test
  void initializeNegotiatesTheVersionAndDescribesTheServer() {
    InitializeOutcome outcome = engine.initialize(Principal.local(),
        new JsonRpcRequest(RequestId.of("init"), "initialize", JSON.parseObject(
            "{\"protocolVersion\":\"2024-01-01\",\"capabilities\":{}}")), null);

    JsonNode result = ((JsonRpcResponse) outcome.response()).result();
    assertThat(outcome.response().id()).isEqualTo(RequestId.of("init"));
    assertThat(result.get("protocolVersion").stringValue()).isEqualTo("2025-11-25");
    assertThat(result.at("/serverInfo/name").stringValue()).isEqualTo("test-server");
    assertThat(result.at("/serverInfo/version").stringValue()).isEqualTo("9.9.9");
    assertThat(result.at("/capabilities/tools/listChanged").booleanValue()).isTrue();
    assertThat(outcome.session().protocolVersion()).isEqualTo("2025-11-25");
    assertThat(engine.session(outcome.session().id(), Principal.local())).containsSame(outcome.session());
  }

  @Test
  void initializeWithoutAProtocolVersionIsInvalidParamsAndCreatesNoSession() {
    InitializeOutcome outcome = engine.initialize(Principal.local(),
        new JsonRpcRequest(RequestId.of(1), "initialize", JSON.parseObject("{}")), null);

    assertThat(outcome.session()).isNull();
    assertThat(((JsonRpcErrorResponse) outcome.response()).error().code())
        .isEqualTo(ErrorCodes.INVALID_PARAMS);
  }

  @Test
  void initializeSentThroughHandleIsAnInvalidRequest() {
    JsonRpcError error = error("initialize",
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
  }

  @Test
  void toolsListReturnsToolsInRegistrationOrder() {
    JsonNode result = result("tools/list", null);

    assertThat(toolNames(result))
        .containsExactly("echo", "stats", "boom", "slow", "strict", "liar", "progress");
    assertThat(result.has("nextCursor")).isFalse();
    assertThat(result.at("/tools/0/inputSchema/required/0").stringValue()).isEqualTo("text");
    assertThat(result.at("/tools/1/outputSchema/required/0").stringValue()).isEqualTo("count");
  }

  @Test
  void callingAToolReturnsItsResult() {
    JsonNode result = result("tools/call",
        "{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}");

    assertThat(result).isEqualTo(JSON.parse(
        "{\"content\":[{\"type\":\"text\",\"text\":\"hello\"}]}"));
  }

  @Test
  void structuredToolResultCarriesStructuredContent() {
    JsonNode result = result("tools/call", "{\"name\":\"stats\"}");

    assertThat(result.get("structuredContent")).isEqualTo(JSON.parse("{\"count\":3}"));
    assertThat(result.at("/content/0/text").stringValue()).isEqualTo("{\"count\":3}");
    assertThat(result.has("isError")).isFalse();
  }

  @Test
  void structuredContentThatBreaksTheOutputSchemaBecomesAToolError() {
    JsonNode result = result("tools/call", "{\"name\":\"liar\"}");

    assertThat(result.get("isError").booleanValue()).isTrue();
    assertThat(result.has("structuredContent")).isFalse();
    assertThat(result.at("/content/0/text").stringValue())
        .matches("Tool liar returned output that does not match its output schema "
            + "\\(error id [0-9a-f]{8}\\)");
  }

  @Test
  void unknownToolIsInvalidParams() {
    JsonRpcError error = error("tools/call", "{\"name\":\"nope\",\"arguments\":{}}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(error.message()).isEqualTo("Unknown tool: nope");
  }

  @Test
  void toolsCallWithoutANameIsInvalidParams() {
    JsonRpcError error = error("tools/call", "{\"arguments\":{}}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
  }

  @Test
  void malformedToolsCallParamsAreInvalidParamsNamingTheField() {
    assertThat(error("tools/call", "{\"name\":5}").message()).isEqualTo("Invalid params: name");
    assertThat(error("tools/call", "{\"name\":null}").message())
        .isEqualTo("Invalid params: name");
    assertThat(error("tools/call", "{\"name\":\"echo\",\"arguments\":[\"hello\"]}").message())
        .isEqualTo("Invalid params: arguments");
    assertThat(error("tools/call", "{\"name\":\"echo\",\"arguments\":\"hello\"}").code())
        .isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(error("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},"
        + "\"_meta\":7}").message()).isEqualTo("Invalid params: _meta");
    assertThat(error("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"x\"},"
        + "\"task\":true}").message()).isEqualTo("Invalid params: task");
    // An explicit null is the same as no arguments at all: the schema then reports the gap.
    JsonNode nullArguments = result("tools/call", "{\"name\":\"echo\",\"arguments\":null}");
    assertThat(nullArguments.at("/content/0/text").stringValue())
        .startsWith("Invalid arguments for tool echo: ");
  }

  @Test
  void invalidArgumentsAreAToolErrorResultNotAProtocolError() {
    JsonNode missing = result("tools/call", "{\"name\":\"echo\",\"arguments\":{}}");
    JsonNode wrongType = result("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":5}}");

    assertThat(missing.get("isError").booleanValue()).isTrue();
    assertThat(missing.at("/content/0/text").stringValue())
        .startsWith("Invalid arguments for tool echo: ");
    assertThat(wrongType.get("isError").booleanValue()).isTrue();
    assertThat(wrongType.at("/content/0/text").stringValue())
        .startsWith("Invalid arguments for tool echo: ");
  }

  @Test
  void thrownRuntimeExceptionIsAToolErrorThatHidesItsMessage() {
    JsonRpcMessage response = answer("tools/call", "{\"name\":\"boom\"}");

    assertThat(response).isInstanceOf(JsonRpcResponse.class);
    JsonNode result = ((JsonRpcResponse) response).result();
    assertThat(result.get("isError").booleanValue()).isTrue();
    assertThat(result.at("/content/0/text").stringValue())
        .matches("Tool boom failed \\(error id [0-9a-f]{8}\\)");
    assertThat(JSON.write(result)).doesNotContain(SECRET).doesNotContain("IllegalState");
  }

  @Test
  void toolThrowingAnErrorStillGetsAnInternalErrorResponseThatHidesItsMessage() {
    server.addTool(Tool.builder("dies").build(), (ctx, args) -> {
      throw new AssertionError(SECRET);
    });

    JsonRpcError error = error("tools/call", "{\"name\":\"dies\"}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INTERNAL_ERROR);
    assertThat(error.message()).matches("Internal error \\(error id [0-9a-f]{8}\\)");
    assertThat(error.data()).isNull();
  }

  @Test
  void thrownMcpExceptionBecomesAJsonRpcErrorWithItsCode() {
    JsonRpcError error = error("tools/call", "{\"name\":\"strict\"}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(error.message()).isEqualTo("date must be in the future");
  }

  @Test
  void unknownMethodIsMethodNotFound() {
    JsonRpcError error = error("tools/explode", "{}");

    assertThat(error.code()).isEqualTo(ErrorCodes.METHOD_NOT_FOUND);
    assertThat(error.message()).isEqualTo("Method not found: tools/explode");
  }

  @Test
  void inv42_notificationCarryingAnIdIsInvalidRequest() {
    JsonRpcError error = error("notifications/initialized", null);

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
  }

  @Test
  void inv42_cancelledNotificationCarryingAnIdCancelsNothing() throws Exception {
    RequestId slowId = RequestId.of(4242);
    Future<Optional<JsonRpcMessage>> running = executor.submit(() ->
        send(session, new JsonRpcRequest(slowId, "tools/call",
            JSON.parseObject("{\"name\":\"slow\"}"))));
    assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();

    JsonRpcError error = error("notifications/cancelled", "{\"requestId\":4242}");
    Thread.sleep(100);

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_REQUEST);
    assertThat(running.isDone()).isFalse();
    assertThat(slowInterrupted).isFalse();
    send(session, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":4242}")));
    assertThat(running.get(5, TimeUnit.SECONDS)).isEmpty();
  }

  @Test
  void pingAnswersAnEmptyObject() {
    assertThat(result("ping", null)).isEqualTo(JSON.parse("{}"));
  }

  @Test
  void loggingSetLevelAcceptsAWireName() {
    assertThat(result("logging/setLevel", "{\"level\":\"debug\"}")).isEqualTo(JSON.parse("{}"));
  }

  @Test
  void loggingSetLevelWithABadLevelIsInvalidParams() {
    JsonRpcError upper = error("logging/setLevel", "{\"level\":\"DEBUG\"}");
    JsonRpcError missing = error("logging/setLevel", "{}");
    JsonRpcError number = error("logging/setLevel", "{\"level\":3}");

    assertThat(upper.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(missing.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(number.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(upper.message()).isEqualTo("Invalid log level");
  }

  @Test
  void progressAndLogsGoToTheRequestStreamRespectingOrderAndLevel() {
    JsonNode result = result("tools/call",
        "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"p-1\"}}");

    assertThat(result.at("/content/0/text").stringValue()).isEqualTo("ok");
    assertThat(stream.methods()).containsExactly("notifications/progress",
        "notifications/progress", "notifications/message");
    ObjectNode first = ((JsonRpcNotification) stream.messages.get(0)).params();
    assertThat(first.get("progressToken").stringValue()).isEqualTo("p-1");
    assertThat(first.get("progress").doubleValue()).isEqualTo(1.0);
    assertThat(first.get("message").stringValue()).isEqualTo("half");
    ObjectNode log = ((JsonRpcNotification) stream.messages.get(2)).params();
    assertThat(log.get("level").stringValue()).isEqualTo("warning");
    assertThat(log.get("data").stringValue()).isEqualTo("shown");
  }

  @Test
  void setLevelChangesWhichLogsReachTheClient() {
    result("logging/setLevel", "{\"level\":\"error\"}");

    result("tools/call", "{\"name\":\"progress\"}");

    assertThat(stream.methods()).isEmpty();
  }

  @Test
  void paginationWalksEveryToolAndRejectsABogusCursor() {
    McpServer paged = McpServer.builder().pageSize(2)
        .tool(Tool.builder("t1").build(), (ctx, args) -> CallToolResult.text("1"))
        .tool(Tool.builder("t2").build(), (ctx, args) -> CallToolResult.text("2"))
        .tool(Tool.builder("t3").build(), (ctx, args) -> CallToolResult.text("3"))
        .tool(Tool.builder("t4").build(), (ctx, args) -> CallToolResult.text("4"))
        .tool(Tool.builder("t5").build(), (ctx, args) -> CallToolResult.text("5"))
        .build();
    try {
      engine = paged.engine();
      session = initialize("2025-11-25");

      JsonNode page1 = result("tools/list", null);
      JsonNode page2 = result("tools/list",
          "{\"cursor\":\"" + page1.get("nextCursor").stringValue() + "\"}");
      JsonNode page3 = result("tools/list",
          "{\"cursor\":\"" + page2.get("nextCursor").stringValue() + "\"}");

      assertThat(toolNames(page1)).containsExactly("t1", "t2");
      assertThat(toolNames(page2)).containsExactly("t3", "t4");
      assertThat(toolNames(page3)).containsExactly("t5");
      assertThat(page3.has("nextCursor")).isFalse();

      JsonRpcError bogus = error("tools/list", "{\"cursor\":\"bogus-cursor\"}");
      JsonRpcError notString = error("tools/list", "{\"cursor\":7}");
      assertThat(bogus.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
      assertThat(bogus.message()).isEqualTo("Invalid cursor");
      assertThat(notString.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    } finally {
      paged.close();
    }
  }

  @Test
  void cancelledNotificationStopsTheRunningToolAndSuppressesItsResponse() throws Exception {
    RequestId slowId = RequestId.of("slow-1");
    AtomicBoolean handlerThreadInterruptedAfter = new AtomicBoolean(true);
    Future<Optional<JsonRpcMessage>> running = executor.submit(() -> {
      Optional<JsonRpcMessage> response = send(session, new JsonRpcRequest(slowId,
          "tools/call", JSON.parseObject("{\"name\":\"slow\"}")));
      handlerThreadInterruptedAfter.set(Thread.currentThread().isInterrupted());
      return response;
    });
    assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();

    Optional<JsonRpcMessage> ack = send(session, new JsonRpcNotification(
        "notifications/cancelled",
        JSON.parseObject("{\"requestId\":\"slow-1\",\"reason\":\"user hit stop\"}")));

    assertThat(ack).isEmpty();
    assertThat(running.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(slowInterrupted).isTrue();
    assertThat(slowFinished).isFalse();
    assertThat(slowReason.get()).isEqualTo("client: user hit stop");
    assertThat(handlerThreadInterruptedAfter).isFalse();
  }

  @Test
  void toolThatSwallowsTheInterruptAndReturnsStillGetsNoResponse() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    AtomicBoolean returned = new AtomicBoolean();
    server.addTool(Tool.builder("stubborn").build(), (ctx, args) -> {
      started.countDown();
      try {
        Thread.sleep(30_000);
      } catch (InterruptedException ignored) {
        // a badly behaved tool: it carries on and returns a result
      }
      returned.set(true);
      return CallToolResult.text("finished anyway");
    });
    Future<Optional<JsonRpcMessage>> running = executor.submit(() ->
        send(session, new JsonRpcRequest(RequestId.of(31), "tools/call",
            JSON.parseObject("{\"name\":\"stubborn\"}"))));
    assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();

    send(session, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":31}")));

    assertThat(running.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(returned).isTrue();
  }

  @Test
  void cancelFromAnotherSessionOrForAnotherIdDoesNotStopTheTool() throws Exception {
    ServerSession other = initialize("2025-06-18");
    Future<Optional<JsonRpcMessage>> running = executor.submit(() ->
        send(session, new JsonRpcRequest(RequestId.of(77), "tools/call",
            JSON.parseObject("{\"name\":\"slow\"}"))));
    assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();

    send(other, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":77}")));
    send(session, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":\"77\"}")));
    send(null, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":77}")));
    Thread.sleep(150);

    assertThat(running.isDone()).isFalse();
    assertThat(slowInterrupted).isFalse();
    send(session, new JsonRpcNotification("notifications/cancelled",
        JSON.parseObject("{\"requestId\":77}")));
    assertThat(running.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(slowInterrupted).isTrue();
  }

  @Test
  void closingTheSessionCancelsItsRunningTool() throws Exception {
    Future<Optional<JsonRpcMessage>> running = executor.submit(() ->
        send(session, new JsonRpcRequest(RequestId.of(5), "tools/call",
            JSON.parseObject("{\"name\":\"slow\"}"))));
    assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();

    session.close();

    assertThat(running.get(5, TimeUnit.SECONDS)).isEmpty();
    assertThat(slowReason.get()).isEqualTo("session ended");
    assertThat(engine.session(session.id(), Principal.local())).isEmpty();
  }

  @Test
  void promptsGetWithoutARequiredArgumentIsInvalidParams() {
    JsonRpcError error = error("prompts/get", "{\"name\":\"forecast\",\"arguments\":{}}");
    JsonRpcError none = error("prompts/get", "{\"name\":\"forecast\"}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(error.message()).isEqualTo("Missing required argument: city");
    assertThat(none.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
  }

  @Test
  void promptsGetRendersThePromptWithItsArguments() {
    JsonNode result = result("prompts/get",
        "{\"name\":\"forecast\",\"arguments\":{\"city\":\"Oslo\"}}");

    assertThat(result.at("/messages/0/role").stringValue()).isEqualTo("user");
    assertThat(result.at("/messages/0/content/text").stringValue()).isEqualTo("Forecast for Oslo");
  }

  @Test
  void unknownPromptIsInvalidParams() {
    JsonRpcError error = error("prompts/get", "{\"name\":\"nope\"}");

    assertThat(error.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(error.message()).isEqualTo("Unknown prompt: nope");
  }

  @Test
  void resourcesReadOfAnUnknownUriIsResourceNotFoundWithTheUri() {
    JsonRpcError error = error("resources/read", "{\"uri\":\"file:///missing.txt\"}");

    assertThat(error.code()).isEqualTo(ErrorCodes.RESOURCE_NOT_FOUND);
    assertThat(error.code()).isEqualTo(-32002);
    assertThat(error.data().get("uri").stringValue()).isEqualTo("file:///missing.txt");
  }

  @Test
  void resourcesReadServesFixedResourcesAndTemplates() {
    JsonNode fixed = result("resources/read", "{\"uri\":\"config://app\"}");
    JsonNode templated = result("resources/read", "{\"uri\":\"weather://New%20York\"}");

    assertThat(fixed.at("/contents/0/text").stringValue()).isEqualTo("v=1");
    assertThat(templated.at("/contents/0/text").stringValue()).isEqualTo("sunny in New York");
    assertThat(templated.at("/contents/0/uri").stringValue()).isEqualTo("weather://New%20York");
  }

  @Test
  void resourcesReadWithoutAUriIsInvalidParams() {
    JsonRpcError missing = error("resources/read", "{}");
    JsonRpcError empty = error("resources/read", "{\"uri\":\"\"}");

    assertThat(missing.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
    assertThat(empty.code()).isEqualTo(ErrorCodes.INVALID_PARAMS);
  }

  @Test
  void listChangedReachesInitializedSessionsWithAListener() {
    Collector listener = new Collector();
    Collector uninitializedListener = new Collector();
    ServerSession uninitialized = initialize("2025-06-18");
    uninitialized.attachListener(uninitializedListener);
    send(session, new JsonRpcNotification("notifications/initialized", null));
    session.attachListener(listener);

    server.addTool(Tool.builder("added").build(), (ctx, args) -> CallToolResult.text("new"));

    assertThat(listener.methods()).containsExactly("notifications/tools/list_changed");
    assertThat(listener.messages.get(0).id()).isNull();
    assertThat(uninitializedListener.messages).isEmpty();
    assertThat(toolNames(result("tools/list", null))).endsWith("added");
  }

  @Test
  void removingToolsAndAddingPromptsAlsoNotify() {
    Collector listener = new Collector();
    send(session, new JsonRpcNotification("notifications/initialized", null));
    session.attachListener(listener);

    boolean removed = server.removeTool("echo");
    boolean removedAgain = server.removeTool("echo");
    server.addPrompt(Prompt.of("p2", null), (ctx, args) -> GetPromptResult.of());

    assertThat(removed).isTrue();
    assertThat(removedAgain).isFalse();
    assertThat(listener.methods()).containsExactly("notifications/tools/list_changed",
        "notifications/prompts/list_changed");
  }

  @Test
  void detachedListenerReceivesNothing() {
    Collector listener = new Collector();
    send(session, new JsonRpcNotification("notifications/initialized", null));
    ListenerAttachment attachment = session.attachListener(listener);

    attachment.detach();
    server.addTool(Tool.builder("added").build(), (ctx, args) -> CallToolResult.text("new"));

    assertThat(attachment.isCurrent()).isFalse();
    assertThat(listener.messages).isEmpty();
  }

  @Test
  void staleDetachDoesNotRemoveANewerListener() {
    Collector older = new Collector();
    Collector newer = new Collector();
    send(session, new JsonRpcNotification("notifications/initialized", null));
    ListenerAttachment first = session.attachListener(older);
    ListenerAttachment second = session.attachListener(newer);

    first.detach();
    server.addTool(Tool.builder("added").build(), (ctx, args) -> CallToolResult.text("new"));

    assertThat(second.isCurrent()).isTrue();
    assertThat(older.messages).isEmpty();
    assertThat(newer.methods()).containsExactly("notifications/tools/list_changed");
  }

  @Test
  void unsolicitedResponseFromTheClientIsDiscarded() {
    Optional<JsonRpcMessage> outcome = send(session,
        new JsonRpcResponse(RequestId.of(12345), JSON.parse("{}")));

    assertThat(outcome).isEmpty();
    assertThat(stream.messages).isEmpty();
  }

  @Test
  void sessionlessRequestsAreServed() {
    Optional<JsonRpcMessage> response = engine.handle(null, Principal.local(),
        request("tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"no session\"}}"),
        stream);

    assertThat(response).isPresent();
    assertThat(((JsonRpcResponse) response.get()).result().at("/content/0/text").stringValue())
        .isEqualTo("no session");
  }

  @Test
  void aTransportCancelsARunningCallThroughIt() throws Exception {
    AnswerStream dropping = new AnswerStream();
    dev.keel.mcp.server.transport.ServerCall call = engine.call(
        dev.keel.mcp.server.transport.Edge.of(null, Principal.local(),
            dev.keel.mcp.core.protocol.Era.LEGACY), request("tools/call", "{\"name\":\"slow\"}"));
    assertThat(call.start(dropping, false)).isTrue();
    assertThat(slowStarted.await(5, TimeUnit.SECONDS)).isTrue();

    call.cancel("connection dropped");

    assertThat(dropping.await()).isEmpty();
    assertThat(slowReason.get()).isEqualTo("connection dropped");
  }

  /**
   * {@link McpServer#close()} promises to end every session and stop accepting work, but the
   * engine keeps creating sessions (and running tools on them) after close.
   */
  @Test
  void closedServerRefusesNewSessions() {
    server.close();

    InitializeOutcome outcome = engine.initialize(Principal.local(),
        new JsonRpcRequest(RequestId.of(1), "initialize", JSON.parseObject(
            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}")), null);

    assertThat(outcome.session()).as("no session is created by a closed server").isNull();
    assertThat(outcome.response()).isInstanceOf(JsonRpcErrorResponse.class);
  }

  @Test
  void closedServerStopsNotifying() {
    Collector listener = new Collector();
    send(session, new JsonRpcNotification("notifications/initialized", null));
    session.attachListener(listener);

    server.close();
    server.addTool(Tool.builder("late").build(), (ctx, args) -> CallToolResult.text("x"));

    assertThat(listener.messages).isEmpty();
    assertThat(session.isClosed()).isTrue();
    await().atMost(Duration.ofSeconds(1)).until(() -> engine.session(session.id(), Principal.local())
        .isEmpty());
  }
}
