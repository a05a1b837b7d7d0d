package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.http.McpHttpServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.node.ObjectNode;

/**
 * The client's side of tasks against the Keel fixture server over real HTTP, in both eras: a
 * task polled to completion, input answered through the task, cancellation, failures, and tools
 * that require a task run transparently by {@code callTool}.
 */
class ClientTasksTest {

  private static McpHttpServer http;

  @BeforeAll
  static void start() {
    http = McpHttpServer.builder(FixtureServer.create()).port(0).start();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  private static McpClient connect(Era era, List<String> asked) {
    return McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .era(era).requestTimeout(Duration.ofSeconds(30))
        .elicitation(request -> {
          asked.add(request.message());
          ObjectNode content = McpJson.object();
          request.requestedSchema().path("properties").propertyNames().forEach(field ->
              content.put(field, request.requestedSchema().path("properties").path(field)
                  .path("type").asString("").equals("boolean") ? "true" : "ada"));
          content.properties().forEach(e -> {
            if (e.getValue().asString().equals("true")) {
              content.put(e.getKey(), true);
            }
          });
          return new ElicitResult(ElicitResult.Action.ACCEPT, content, null);
        })
        .connect();
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aLongToolRunsAsATaskPolledToCompletion(Era era) {
    try (McpClient client = connect(era, new CopyOnWriteArrayList<>())) {
      client.listTools();
      Task task = client.callToolAsTask("slow_compute",
          McpJson.object().put("seconds", 0.6).put("label", "pi"), CallOptions.defaults());
      assertThat(task.taskId()).isNotBlank();
      assertThat(task.status()).isEqualTo(Task.Status.WORKING);
      assertThat(task.pollIntervalMillis()).isPositive();
      assertThat(client.getTask(task).status()).isIn(Task.Status.WORKING,
          Task.Status.COMPLETED);
      CallToolResult result = client.awaitTask(task, Duration.ofSeconds(20));
      assertThat(text(result)).isEqualTo("Computed pi after 0.6 s");
      assertThat(client.getTask(task).status()).isEqualTo(Task.Status.COMPLETED);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aTaskThatNeedsInputIsResumedThroughTheHandlers(Era era) {
    List<String> asked = new CopyOnWriteArrayList<>();
    try (McpClient client = connect(era, asked)) {
      client.listTools();
      Task task = client.callToolAsTask("confirm_delete",
          McpJson.object().put("filename", "notes.txt"), CallOptions.defaults());
      assertThat(text(client.awaitTask(task, Duration.ofSeconds(20))))
          .isEqualTo("Deleted notes.txt");
      assertThat(asked).containsExactly("Delete notes.txt?");

      Task two = client.callToolAsTask("multi_input", null, CallOptions.defaults());
      assertThat(text(client.awaitTask(two, Duration.ofSeconds(20))))
          .isEqualTo("Got ada and true");
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aCancelledTaskEndsCancelledAndItsWaitSaysSo(Era era) {
    try (McpClient client = connect(era, new CopyOnWriteArrayList<>())) {
      client.listTools();
      Task task = client.callToolAsTask("slow_compute", McpJson.object().put("seconds", 60),
          CallOptions.defaults());
      Task cancelled = client.cancelTask(task);
      assertThat(cancelled.status()).isEqualTo(Task.Status.CANCELLED);
      assertThatThrownBy(() -> client.awaitTask(task, Duration.ofSeconds(10)))
          .isInstanceOf(RequestCancelledException.class);
      // Cancelling again changes nothing.
      assertThat(client.cancelTask(task).status()).isEqualTo(Task.Status.CANCELLED);
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void failuresReachTheCaller(Era era) {
    try (McpClient client = connect(era, new CopyOnWriteArrayList<>())) {
      client.listTools();
      Task task = client.callToolAsTask("protocol_error_job", null, CallOptions.defaults());
      assertThatThrownBy(() -> client.awaitTask(task, Duration.ofSeconds(20)))
          .isInstanceOfSatisfying(McpException.class, e -> {
            assertThat(e.code()).isEqualTo(-32603);
            assertThat(e.getMessage()).contains("protocol error on purpose");
          });
      // failing_job requires a task: callTool runs it as one and returns its tool error.
      CallToolResult failed = client.callTool("failing_job", null);
      assertThat(failed.failed()).isTrue();
      assertThat(text(failed)).isEqualTo("failing_job failed on purpose");
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aToolThatRequiresATaskRunsTransparentlyAndATimeoutCancelsIt(Era era) {
    List<String> asked = new CopyOnWriteArrayList<>();
    try (McpClient client = connect(era, asked)) {
      client.listTools();
      CallToolResult result = client.callTool("test_tool_with_task", null);
      assertThat(text(result)).startsWith("Hello, ada! (from task ");
      assertThat(asked).containsExactly("What is your name?");

      // A greeting needs no task; slow_compute as a plain call with a timeout is cancelled.
      assertThat(text(client.callTool("greet", McpJson.object().put("name", "Bo"))))
          .isEqualTo("Hello, Bo!");
      Task slow = client.callToolAsTask("slow_compute", McpJson.object().put("seconds", 60),
          CallOptions.defaults());
      assertThatThrownBy(() -> client.awaitTask(slow, Duration.ofMillis(700)))
          .isInstanceOf(RequestTimeoutException.class);
      assertThat(client.getTask(slow).status()).as("awaitTask leaves the task running")
          .isEqualTo(Task.Status.WORKING);
      client.cancelTask(slow);
    }
  }
}
