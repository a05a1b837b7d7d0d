package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.Task;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The tasks example over real HTTP in both eras: a task is created at once and its result
 * awaited; a second one is cancelled while it runs and ends cancelled.
 */
class TasksDemoTest {

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void aLongCallRunsAsATaskAndCanBeCancelled(Era era) {
    McpServer server = TasksDemo.server();
    try (McpHttpServer http = McpHttpServer.builder(server).host("127.0.0.1").port(0).start();
        McpClient client = McpClient.builder(StreamableHttpTransport.builder(http.endpoint())
            .build()).era(era).connect()) {
      Task task = client.callToolAsTask("build_report", McpJson.object().put("parts", 4),
          CallOptions.defaults());
      assertThat(task.taskId()).isNotBlank();
      CallToolResult result = client.awaitTask(task, Duration.ofSeconds(30));
      assertThat(((TextContent) result.content().get(0)).text()).isEqualTo("report of 4 parts");

      Task slow = client.callToolAsTask("build_report", McpJson.object().put("parts", 100),
          CallOptions.defaults());
      Task cancelled = client.cancelTask(slow);
      assertThat(cancelled.status()).isEqualTo(Task.Status.CANCELLED);
      assertThat(client.getTask(slow).status()).isEqualTo(Task.Status.CANCELLED);
    } finally {
      server.close();
    }
  }
}
