package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.Tool;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 15: a handler's "needs input" and "continue as a task" leave it through a dedicated
 * unchecked signal, not an {@link Error}; a handler that swallows it with
 * {@code catch (Exception e)} still gets the outcome it asked for, and a
 * {@link VirtualMachineError} always propagates.
 */
class ControlFlowTest {

  static final McpJson JSON = McpJson.standard();
  static final String META = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{},"
      + "\"extensions\":{\"io.modelcontextprotocol/tasks\":{}}}}";

  McpServer server;
  /** How often the handler of {@code swallows_its_task} ran. */
  final java.util.concurrent.atomic.AtomicInteger taskHandlerRuns =
      new java.util.concurrent.atomic.AtomicInteger();

  static ObjectNode form() {
    return JSON.parseObject("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
        + "\"string\"}}}");
  }

  @BeforeEach
  void start() {
    server = McpServer.builder().name("control").version("1")
        .tool(Tool.builder("swallows").build(), (ctx, args) -> {
          try {
            ctx.elicit("name", ElicitRequest.form("Name?", form()));
          } catch (Exception e) {
            return CallToolResult.text("swallowed " + e.getClass().getSimpleName());
          }
          return CallToolResult.text("answered");
        })
        .tool(Tool.builder("swallows_and_asks_again").build(), (ctx, args) -> {
          try {
            ctx.elicit("name", ElicitRequest.form("Name?", form()));
          } catch (Exception e) {
            ctx.elicit("other", ElicitRequest.form("Other?", form()));
          }
          return CallToolResult.text("answered");
        })
        .tool(Tool.builder("swallows_and_throws").build(), (ctx, args) -> {
          try {
            ctx.elicit("name", ElicitRequest.form("Name?", form()));
          } catch (Exception e) {
            throw new IllegalStateException("something else");
          }
          return CallToolResult.text("answered");
        })
        .tool(Tool.builder("swallows_its_task").build(),
            ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL).withTaskOnDemand(),
            (ctx, args) -> {
              taskHandlerRuns.incrementAndGet();
              try {
                return ctx.continueAsTask(task -> CallToolResult.text("from the task"));
              } catch (Exception e) {
                return CallToolResult.text("swallowed the task");
              }
            })
        // non-blocking, so that it runs on the caller's thread, where the error must arrive
        .tool(Tool.builder("dies").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              throw new OutOfMemoryError("a test of propagation");
            })
        .tool(Tool.builder("asserts").build(), (ctx, args) -> {
          throw new AssertionError("not a VirtualMachineError");
        })
        .build();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  Optional<JsonRpcMessage> call(String tool) {
    ObjectNode params = JSON.parseObject("{\"name\":\"" + tool + "\",\"arguments\":{},"
        + "\"_meta\":" + META + "}");
    return server.engine().handle(null, Principal.local(),
        new JsonRpcRequest(RequestId.of(1), "tools/call", params), CollectingStream.open());
  }

  static JsonNode result(Optional<JsonRpcMessage> response) {
    assertThat(response).get().isInstanceOf(JsonRpcResponse.class);
    return ((JsonRpcResponse) response.get()).result();
  }

  @Test
  void aSwallowedQuestionIsStillAsked() {
    for (String tool : new String[] {"swallows", "swallows_and_asks_again",
        "swallows_and_throws"}) {
      JsonNode result = result(call(tool));
      assertThat(result.path("resultType").asString()).as(tool).isEqualTo("input_required");
      assertThat(result.path("inputRequests").has("name")).as(tool).isTrue();
      assertThat(result.toString()).as(tool).doesNotContain("swallowed");
    }
  }

  @Test
  void aSwallowedTaskStillBecomesATask() {
    JsonNode result = result(call("swallows_its_task"));
    assertThat(result.path("resultType").asString()).isEqualTo("task");
    assertThat(result.toString()).doesNotContain("swallowed");
    // and the task runs the work the handler handed over
    String taskId = result.findValue("taskId").asString();
    ObjectNode get = JSON.parseObject("{\"taskId\":\"" + taskId + "\",\"_meta\":" + META
        + "}");
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> {
      JsonNode task = result(server.engine().handle(null, Principal.local(),
          new JsonRpcRequest(RequestId.of(2), "tasks/get", get), CollectingStream.open()));
      return task.toString().contains("from the task");
    });
    // the work ran on the task's thread, not the handler a second time
    assertThat(taskHandlerRuns.get()).as("runs of the handler").isEqualTo(1);
  }

  @Test
  void aVirtualMachineErrorPropagatesAndOtherErrorsAreInternalErrors() {
    assertThatThrownBy(() -> call("dies")).isInstanceOf(OutOfMemoryError.class);
    assertThat(server.metrics().inFlightRequests()).isZero();
    Optional<JsonRpcMessage> asserted = call("asserts");
    assertThat(asserted.get().toString()).contains("-32603");
  }
}
