package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.http.console.Console;
import dev.keel.mcp.server.McpServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * A cancel from the operator console reaches a real Keel client as its own cancellation would:
 * the handler's token fires, and the in-flight {@code tools/call} ends with
 * {@link RequestCancelledException} in a legacy session and in the stateless era, and a task
 * cancelled from the console is {@code cancelled} as the client sees it.
 */
class ConsoleCancellationTest {

  static final String SECRET = "console-cancellation-secret";
  static McpServer server;
  static volatile String tokenReason;
  static McpHttpServer http;
  static final HttpClient web = HttpClient.newHttpClient();

  @BeforeAll
  static void start() {
    // a tool that tells the test what its own token saw
    server = FixtureServer.create(b -> b.tool(dev.keel.mcp.core.schema.Tool.builder("token_watch")
            .inputSchema("{\"type\":\"object\"}").build(), (ctx, args) -> {
              try {
                Thread.sleep(30_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              tokenReason = ctx.cancellation().isCancelled() ? ctx.cancellation().reason()
                  : "not cancelled";
              ctx.cancellation().throwIfCancelled();
              return dev.keel.mcp.core.schema.CallToolResult.text("slept");
            }));
    http = McpHttpServer.builder(server)
        .console(Console.builder().operator("alice", SECRET).build()).start();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  static McpClient client(Era era) {
    return McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .era(era).requestTimeout(Duration.ofSeconds(60)).connect();
  }

  static JsonNode console(String method, String rel, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(http.console().orElseThrow().resolve(rel))
        .header("Authorization", "Bearer " + SECRET).timeout(Duration.ofSeconds(10));
    b = body == null ? b.GET() : b.header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    HttpResponse<String> r = web.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return McpJson.standard().mapper().readTree(r.body());
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aConsoleCancelEndsTheClientsCallWithRequestCancelled(Era era) throws Exception {
    try (McpClient client = client(era)) {
      tokenReason = null;
      CompletableFuture<Object> call = CompletableFuture.supplyAsync(() -> client.callTool(
          "token_watch", McpJson.standard().parseObject("{}"),
          CallOptions.defaults().withTimeout(Duration.ofSeconds(60))));
      JsonNode row = Awaitility.await().atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(50)).until(() -> {
            for (JsonNode r : console("GET", "api/snapshot", null).get("requests")) {
              if ("token_watch".equals(r.path("tool").asString(""))) {
                return r;
              }
            }
            return null;
          }, r -> r != null);
      assertThat(row.get("era").asString()).isEqualTo(era == Era.LEGACY ? "legacy" : "modern");
      if (era == Era.LEGACY) {
        // the session appears by a hash only: its id is a credential
        String sid = client.transport().sessionId();
        assertThat(row.get("session").asString()).isNotBlank().isNotEqualTo(sid);
        assertThat(console("GET", "api/snapshot", null).toString()).doesNotContain(sid);
      }
      long t0 = System.nanoTime();
      JsonNode cancelled = console("POST", "api/cancel-request",
          "{\"handle\":\"" + row.get("handle").asString() + "\"}");
      assertThat(cancelled.get("cancelled").asBoolean()).isTrue();
      assertThatThrownBy(() -> call.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(RequestCancelledException.class);
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(5000);
      // the handler's own token fired, with the operator's name as the reason
      Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> tokenReason != null);
      assertThat(tokenReason).contains("operator alice");
      // the client and its session go on: the next call is answered
      assertThat(client.callTool("test_sleep", McpJson.standard().parseObject("{\"ms\":1}"))
          .failed()).isFalse();
    }
  }

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aTaskCancelledFromTheConsoleIsCancelledForItsClient(Era era) throws Exception {
    try (McpClient client = client(era)) {
      Task task = client.callToolAsTask("slow_compute",
          McpJson.standard().parseObject("{\"seconds\":30}"), CallOptions.defaults());
      assertThat(task.taskId()).isNotNull();
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
        for (JsonNode t : console("GET", "api/snapshot", null).get("tasks")) {
          if (t.get("taskId").asString().equals(task.taskId())) {
            return t.get("status").asString().equals("working");
          }
        }
        return false;
      });
      JsonNode cancelled = console("POST", "api/cancel-task",
          "{\"taskId\":\"" + task.taskId() + "\"}");
      assertThat(cancelled.get("cancelled").asBoolean()).isTrue();
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() ->
          client.getTask(task).status() == Task.Status.CANCELLED);
      assertThatThrownBy(() -> client.awaitTask(task, Duration.ofSeconds(10)))
          .isInstanceOf(RequestCancelledException.class);
    }
  }
}
