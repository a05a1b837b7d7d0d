package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.ToolOptions;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.awaitility.Awaitility;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The tools the task tests run, and small helpers over raw JSON-RPC. Every tool supports tasks
 * ({@code optional}) except {@code plain} (forbidden) and {@code only_task} (required).
 */
final class TaskTools {

  /** Counted down when {@code block} starts; replaced per test. */
  static volatile CountDownLatch blockStarted = new CountDownLatch(1);
  /** Counted down when {@code block}'s thread is interrupted. */
  static volatile CountDownLatch blockInterrupted = new CountDownLatch(1);

  private TaskTools() {}

  static void reset() {
    blockStarted = new CountDownLatch(1);
    blockInterrupted = new CountDownLatch(1);
  }

  static McpServer.Builder register(McpServer.Builder b) {
    ToolOptions task = ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL);
    b.tool(Tool.builder("long").inputSchema("{\"type\":\"object\",\"properties\":"
            + "{\"ms\":{\"type\":\"integer\"}}}").build(), task,
        (ctx, args) -> {
          long ms = args.path("ms").asLong(300);
          Thread.sleep(ms);
          return CallToolResult.text("done after " + ms + " ms in task " + ctx.taskId());
        });
    b.tool(Tool.builder("quick").build(), task, (ctx, args) -> CallToolResult.text("quick"));
    b.tool(Tool.builder("ask").build(), task, (ctx, args) -> {
      ObjectNode schema = McpJson.object();
      schema.put("type", "object");
      schema.putObject("properties").putObject("confirm").put("type", "boolean");
      ElicitResult answer = ctx.elicit("confirm", ElicitRequest.form("Go on?", schema));
      return CallToolResult.text("answer: " + answer.action().name().toLowerCase() + "/"
          + (answer.content() == null ? "-" : answer.content().path("confirm").asString()));
    });
    b.tool(Tool.builder("block").build(), task, (ctx, args) -> {
      blockStarted.countDown();
      try {
        Thread.sleep(60_000);
      } catch (InterruptedException e) {
        blockInterrupted.countDown();
        throw e;
      }
      return CallToolResult.text("finished");
    });
    b.tool(Tool.builder("boom").build(), task, (ctx, args) -> {
      throw new McpException(ErrorCodes.INVALID_PARAMS, "boom: the input is not usable");
    });
    b.tool(Tool.builder("plain").build(), (ctx, args) -> CallToolResult.text("plain"));
    b.tool(Tool.builder("only_task").build(),
        ToolOptions.defaults().withTaskSupport(TaskSupport.REQUIRED),
        (ctx, args) -> CallToolResult.text("only as a task"));
    return b;
  }

  /** The JSON-RPC message of an answer, whether plain JSON or the last event of a stream. */
  static JsonNode message(RawHttp.Response r) {
    String body = r.body();
    if (body.stripLeading().startsWith("{")) {
      return McpJson.standard().parse(body);
    }
    String last = null;
    for (String line : body.split("\n")) {
      if (line.startsWith("data:") && line.length() > 5 && !line.substring(5).isBlank()) {
        last = line.substring(5).strip();
      }
    }
    assertThat(last).as("a message in %s", body).isNotNull();
    return McpJson.standard().parse(last);
  }

  static JsonNode result(RawHttp.Response r) {
    JsonNode m = message(r);
    assertThat(m.has("result")).as("a result: %s", m).isTrue();
    return m.get("result");
  }

  static int errorCode(RawHttp.Response r) {
    JsonNode m = message(r);
    assertThat(m.has("error")).as("an error: %s", m).isTrue();
    return m.get("error").get("code").asInt();
  }

  /** Polls until {@code status} (or a terminal status) and returns the last answer. */
  static JsonNode pollUntil(java.util.concurrent.Callable<JsonNode> get, String status) {
    JsonNode[] last = new JsonNode[1];
    Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(25))
        .until(() -> {
          last[0] = get.call();
          String s = last[0].path("status").asString("");
          return s.equals(status) || s.equals("completed") || s.equals("failed")
              || s.equals("cancelled");
        });
    return last[0];
  }
}
