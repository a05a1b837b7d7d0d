package dev.keel.mcp.test;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Both sides compose the same inbound table: when a server stops waiting on a question it asked
 * in a legacy session (here its client-request timeout passes), it sends
 * {@code notifications/cancelled}, and the client's handler answering that question is
 * interrupted instead of keeping its user busy with a question nobody waits for.
 */
class ServerWithdrawsItsQuestionTest {

  @Test
  void aQuestionTheServerStopsWaitingOnInterruptsTheClientsHandler() throws Exception {
    AtomicReference<String> toolSaw = new AtomicReference<>();
    McpServer server = McpServer.builder().name("asks").version("1")
        .clientRequestTimeout(Duration.ofMillis(400))
        .tool(Tool.builder("ask").description("Asks and gives up").build(), (ctx, args) -> {
          try {
            ctx.elicit("name", ElicitRequest.form("Your name?", McpJson.standard().parseObject(
                "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}")));
            toolSaw.set("an answer");
          } catch (RuntimeException e) {
            toolSaw.set(e.getClass().getSimpleName());
          }
          return CallToolResult.text("done");
        })
        .build();
    CountDownLatch asked = new CountDownLatch(1);
    CountDownLatch interrupted = new CountDownLatch(1);
    InMemoryServerTransport transport = InMemoryServerTransport.create(server);
    try (McpClient client = McpClient.builder(transport.connect()).era(Era.LEGACY)
        .requestTimeout(Duration.ofSeconds(20))
        .elicitation(request -> {
          asked.countDown();
          try {
            Thread.sleep(30_000); // a person who never answers
          } catch (InterruptedException e) {
            interrupted.countDown();
            Thread.currentThread().interrupt();
          }
          return new ElicitResult(ElicitResult.Action.DECLINE, null, null);
        })
        .connect()) {
      CallToolResult result = client.callTool("ask", McpJson.object());

      assertThat(result.failed()).isFalse();
      assertThat(toolSaw.get()).isEqualTo("RequestTimeoutException");
      assertThat(asked.await(5, TimeUnit.SECONDS)).isTrue();
      assertThat(interrupted.await(10, TimeUnit.SECONDS))
          .as("the client's handler was told the question was withdrawn").isTrue();
    } finally {
      transport.close();
      server.close();
    }
  }
}
