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
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.ServerCall;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
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
      // The cancel arrives after the request was received and resolved, before any handler
      // thread picks it up: the token already exists, so the handler never runs.
      Edge edge = Edge.of(session, Principal.local(), Era.LEGACY);
      ServerCall call = server.engine().call(edge, new JsonRpcRequest(RequestId.of(9),
          "tools/call", JSON.parseObject("{\"name\":\"quick\"}")));
      server.engine().deliver(edge, new JsonRpcNotification("notifications/cancelled",
          JSON.parseObject("{\"requestId\":9}")));
      AnswerStream answer = new AnswerStream();
      assertThat(call.start(answer, false)).isTrue();
      Optional<JsonRpcMessage> response = answer.await();

      assertThat(ran).as("a request cancelled before it started never runs").isFalse();
      assertThat(response).as("a cancelled request gets no response").isEmpty();
      assertThat(server.metrics().cancellations()).isEqualTo(1);
    } finally {
      server.close();
    }
  }
}
