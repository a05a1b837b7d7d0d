package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.InitializeRequest;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The order of a request's life: its token exists before its handler starts. */
class CancellationOrderTest {

  static final McpJson JSON = McpJson.standard();

  @Test
  void inv17_aCancelArrivingBeforeTheHandlerStartsIsNeverLost() {
    AtomicBoolean sawCancelled = new AtomicBoolean();
    AtomicBoolean ran = new AtomicBoolean();
    McpServer server = McpServer.builder()
        .tool(Tool.builder("quick").build(), (ctx, args) -> {
          ran.set(true);
          sawCancelled.set(ctx.cancellation().isCancelled());
          return CallToolResult.text("done");
        })
        .build();
    try {
      ServerSession session = server.engine().initialize(Principal.local(),
          new JsonRpcRequest(RequestId.of(0), "initialize", JSON.toObject(
              new InitializeRequest("2025-11-25", null, null, null))), null).session();
      ServerSession[] self = {session};
      // The cancel is delivered at the last moment before the handler runs: from the
      // transport's hook, which the engine calls just before the handler starts.
      MessageStream stream = new MessageStream() {
        @Override
        public boolean send(JsonRpcMessage message) {
          return true;
        }

        @Override
        public void requestStarted(Consumer<String> cancel) {
          server.engine().handle(self[0], Principal.local(), new JsonRpcNotification(
              "notifications/cancelled", JSON.parseObject("{\"requestId\":9}")), this);
        }
      };
      Optional<JsonRpcMessage> response = server.engine().handle(session, Principal.local(),
          new JsonRpcRequest(RequestId.of(9), "tools/call",
              JSON.parseObject("{\"name\":\"quick\"}")), stream);

      assertThat(ran).isTrue();
      assertThat(sawCancelled).as("the handler saw the early cancel").isTrue();
      assertThat(response).as("a cancelled request gets no response").isEmpty();
    } finally {
      server.close();
    }
  }
}
