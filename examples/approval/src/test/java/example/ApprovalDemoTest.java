package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The approval example over real HTTP in both eras: a decline keeps the file, an approval
 * deletes it, and the person was shown what the tool is about to do.
 */
class ApprovalDemoTest {

  @ParameterizedTest
  @EnumSource(value = Era.class, names = {"LEGACY", "MODERN"})
  void onlyAnApprovalDeletes(Era era) {
    ApprovalDemo.FILES.put("draft.txt", "an old draft");
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(logged, true, java.nio.charset.StandardCharsets.UTF_8));
    McpServer server = ApprovalDemo.server();
    try (McpHttpServer http = McpHttpServer.builder(server).host("127.0.0.1").port(0).start()) {
      AtomicReference<String> answer = new AtomicReference<>("decline");
      AtomicReference<String> asked = new AtomicReference<>();
      try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(http.endpoint())
              .build()).era(era)
          .elicitation(request -> {
            asked.set(request.message());
            return answer.get().equals("accept")
                ? new ElicitResult(ElicitResult.Action.ACCEPT,
                    McpJson.object().put("approve", true), null)
                : new ElicitResult(ElicitResult.Action.DECLINE, null, null);
          })
          .connect()) {
        CallToolResult declined = client.callTool("delete_file",
            McpJson.object().put("name", "draft.txt"));
        assertThat(declined.isError()).isTrue();
        assertThat(text(declined)).isEqualTo("Not approved: draft.txt was kept");
        assertThat(asked.get()).isEqualTo("Delete draft.txt? It cannot be undone.");
        assertThat(ApprovalDemo.FILES).containsKey("draft.txt");

        answer.set("accept");
        CallToolResult deleted = client.callTool("delete_file",
            McpJson.object().put("name", "draft.txt"));
        assertThat(text(deleted)).isEqualTo("Deleted draft.txt");
        assertThat(ApprovalDemo.FILES).doesNotContainKey("draft.txt");
      }
    } finally {
      server.close();
      System.setErr(err);
      err.print(logged);
    }
    // asking the person is not a failure of the tool (in the 2026-07-28 era the question ends
    // an attempt, and the answer comes with the next one)
    assertThat(logged.toString()).doesNotContain("ERROR").doesNotContain("failed");
  }

  private static String text(CallToolResult result) {
    return ((TextContent) result.content().get(0)).text();
  }
}
