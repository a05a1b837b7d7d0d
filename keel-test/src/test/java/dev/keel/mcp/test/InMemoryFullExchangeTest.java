package dev.keel.mcp.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.TaskSupport;
import dev.keel.mcp.server.ToolOptions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 15, done item 2: a server transport and a client transport written with only the
 * exported packages of keel-server and keel-client (the in-memory pair; that they import nothing
 * internal is {@link ExportedPackagesOnlyTest}'s job) carry a full exchange in both eras: a call
 * with progress, an elicitation, a cancellation that interrupts the handler, a task.
 *
 * <p>The client here is keel-client's own {@link McpClient}, not the test kit's, so what is
 * proven is the transport pair under the real client and the real engine.
 */
class InMemoryFullExchangeTest {

  private final CountDownLatch blockStarted = new CountDownLatch(1);
  private final CountDownLatch blockEnded = new CountDownLatch(1);
  private final AtomicReference<Boolean> blockInterrupted = new AtomicReference<>();
  private final AtomicReference<String> blockReason = new AtomicReference<>();
  private final List<String> asked = new CopyOnWriteArrayList<>();
  private McpServer server;
  private InMemoryServerTransport transport;

  @BeforeEach
  void start() {
    server = McpServer.builder().name("exchange").version("1")
        .tool(Tool.builder("count").description("Counts to three with progress").build(),
            (ctx, args) -> {
              for (int i = 1; i <= 3; i++) {
                ctx.progress(i, 3.0, "step " + i);
              }
              return CallToolResult.text("counted 3");
            })
        .tool(Tool.builder("greet").description("Asks for a name").build(), (ctx, args) -> {
          ObjectNode schema = McpJson.standard().parseObject("{\"type\":\"object\","
              + "\"properties\":{\"name\":{\"type\":\"string\"}},\"required\":[\"name\"]}");
          ElicitResult answer = ctx.elicit("user_name", ElicitRequest.form("Your name?", schema));
          return CallToolResult.text("Hello, " + answer.content().get("name").asString() + "!");
        })
        .tool(Tool.builder("block").description("Waits until cancelled").build(),
            (ctx, args) -> {
              blockStarted.countDown();
              try {
                Thread.sleep(30_000);
                return CallToolResult.text("never cancelled");
              } catch (InterruptedException e) {
                blockInterrupted.set(true);
                blockReason.set(ctx.cancellation().reason());
                throw e;
              } finally {
                blockEnded.countDown();
              }
            })
        .tool(Tool.builder("slow_task").description("Runs as a task").build(),
            ToolOptions.defaults().withTaskSupport(TaskSupport.OPTIONAL), (ctx, args) -> {
              Thread.sleep(200);
              return CallToolResult.text("task done");
            })
        .build();
    transport = InMemoryServerTransport.create(server);
  }

  @AfterEach
  void stop() {
    transport.close();
    server.close();
  }

  private McpClient connect(Era era) {
    return McpClient.builder(transport.connect()).era(era)
        .requestTimeout(Duration.ofSeconds(20))
        .elicitation(request -> {
          asked.add(request.message());
          return new ElicitResult(ElicitResult.Action.ACCEPT,
              McpJson.object().put("name", "Ada"), null);
        })
        .connect();
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aFullExchangeRunsThroughTheInMemoryPair(Era era) throws Exception {
    try (McpClient client = connect(era)) {
      assertThat(client.era()).isEqualTo(era);
      assertThat(client.transport().sessionId()).as("a session only in the legacy era")
          .matches(id -> era == Era.LEGACY ? id != null : id == null);

      // A call with progress: every report arrives, in order, before the answer.
      List<Double> progress = new CopyOnWriteArrayList<>();
      CallToolResult counted = client.callTool("count", McpJson.object(),
          CallOptions.defaults().withProgress((done, total, message) -> progress.add(done)));
      assertThat(text(counted)).isEqualTo("counted 3");
      assertThat(progress).containsExactly(1.0, 2.0, 3.0);

      // An elicitation: a server-to-client request in a session, an MRTR round statelessly.
      CallToolResult greeted = client.callTool("greet", McpJson.object());
      assertThat(text(greeted)).isEqualTo("Hello, Ada!");
      assertThat(asked).containsExactly("Your name?");

      // A cancellation that interrupts the handler: interrupting the caller cancels the call.
      AtomicReference<Throwable> outcome = new AtomicReference<>();
      Thread caller = new Thread(() -> {
        try {
          client.callTool("block", McpJson.object());
        } catch (Throwable t) {
          outcome.set(t);
        }
      }, "caller-" + era);
      caller.start();
      assertThat(blockStarted.await(10, TimeUnit.SECONDS)).as("the handler started").isTrue();
      caller.interrupt();
      caller.join(10_000);
      assertThat(outcome.get()).isInstanceOf(RequestCancelledException.class);
      assertThat(blockEnded.await(10, TimeUnit.SECONDS)).as("the handler ended").isTrue();
      assertThat(blockInterrupted.get()).as("the handler's thread was interrupted").isTrue();
      // Each era's own way: notifications/cancelled in the session, the closed stream otherwise.
      assertThat(blockReason.get()).contains(era == Era.LEGACY ? "client: cancelled by the client"
          : "the client closed the stream");

      // A task: created at once, then polled to its result.
      Task task = client.callToolAsTask("slow_task", McpJson.object(), CallOptions.defaults());
      assertThat(task.taskId()).isNotBlank();
      assertThat(task.status().terminal()).isFalse();
      assertThat(text(client.awaitTask(task, Duration.ofSeconds(10)))).isEqualTo("task done");
      assertThat(client.getTask(task).status()).isEqualTo(Task.Status.COMPLETED);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void closingTheServerTransportFailsTheClientsCallsAndEndsTheSession(Era era) {
    McpClient client = connect(era);
    try {
      assertThat(client.listTools()).extracting(Tool::name)
          .contains("count", "greet", "block", "slow_task");
      assertThat(server.metrics().sessions()).isEqualTo(era == Era.LEGACY ? 1 : 0);
      transport.close();
      assertThat(server.metrics().sessions()).as("the session ended with the transport")
          .isZero();
      assertThatThrownBy(client::listTools).isInstanceOf(RuntimeException.class);
    } finally {
      client.close();
    }
  }
}
