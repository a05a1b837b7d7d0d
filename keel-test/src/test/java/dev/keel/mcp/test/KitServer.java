package dev.keel.mcp.test;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.CreateMessageRequest;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.ReadResourceResult;
import dev.keel.mcp.core.schema.Resource;
import dev.keel.mcp.core.schema.TextResourceContents;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.ToolOptions;
import java.util.concurrent.atomic.AtomicBoolean;
import tools.jackson.databind.node.ObjectNode;

/** The server the kit's own tests run against: one tool per thing the kit records. */
final class KitServer {

  static final String NOTE = "mem://note";
  /** Set by the block tool when its thread was interrupted; reset by {@link #create}. */
  static final AtomicBoolean BLOCK_INTERRUPTED = new AtomicBoolean();

  private KitServer() {}

  static McpServer create() {
    BLOCK_INTERRUPTED.set(false);
    return McpServer.builder().name("kit").version("1")
        .tool(Tool.builder("echo").description("Returns its text")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
                .build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .tool(Tool.builder("count").description("Counts to three").build(), (ctx, args) -> {
          for (int i = 1; i <= 3; i++) {
            ctx.progress(i, 3.0, "step " + i);
          }
          return CallToolResult.text("counted");
        })
        .tool(Tool.builder("chatty").description("Logs").build(), (ctx, args) -> {
          ctx.log(LoggingLevel.INFO, "hello from chatty");
          ctx.log(LoggingLevel.DEBUG, "details");
          return CallToolResult.text("logged");
        })
        .tool(Tool.builder("greet").description("Asks for a name").build(), (ctx, args) -> {
          ObjectNode schema = McpJson.standard().parseObject("{\"type\":\"object\","
              + "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
          ElicitResult answer = ctx.elicit("name", ElicitRequest.form("Your name?", schema));
          return answer.accepted()
              ? CallToolResult.text("Hello, " + answer.content().get("name").asString() + "!")
              : CallToolResult.error("no name: " + answer.action());
        })
        .tool(Tool.builder("ask_model").description("Samples").build(), (ctx, args) ->
            CallToolResult.text("model said: "
                + ctx.sample("answer", CreateMessageRequest.of("Weather?", 50)).text()))
        .tool(Tool.builder("roots").description("Counts the roots").build(), (ctx, args) ->
            CallToolResult.text(ctx.listRoots("roots").size() + " roots"))
        .tool(Tool.builder("block").description("Runs until cancelled").build(),
            (ctx, args) -> {
              ctx.progress(1, null, "started");
              try {
                Thread.sleep(30_000);
              } catch (InterruptedException e) {
                BLOCK_INTERRUPTED.set(true);
                throw e;
              }
              return CallToolResult.text("not cancelled");
            })
        .tool(Tool.builder("stats").description("Structured").build(), (ctx, args) ->
            new CallToolResult(java.util.List.of(new dev.keel.mcp.core.schema.TextContent(
                "2 rows", null, null)), McpJson.standard().parse(
                "{\"total\":2,\"rows\":[{\"name\":\"a\",\"n\":1},{\"name\":\"b\",\"n\":2.5}]}"),
                null, null))
        .tool(Tool.builder("broken").description("Always a tool error").build(),
            (ctx, args) -> CallToolResult.error("boom"))
        .tool(Tool.builder("slow_task").description("Runs as a task").build(),
            ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL), (ctx, args) -> {
              Thread.sleep(150);
              return CallToolResult.text("task done");
            })
        .resource(Resource.of(NOTE, "note", "A note", "text/plain"), (ctx, uri) ->
            ReadResourceResult.of(new TextResourceContents(uri, "text/plain", "remember", null)))
        .build();
  }
}
