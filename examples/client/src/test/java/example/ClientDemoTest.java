package example;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The client example against a real Keel server on a loopback port: the echo comes back, and
 * Keel's README shows the example's code verbatim.
 */
class ClientDemoTest {

  @Test
  void theClientCallsEchoOnARealServer() {
    McpServer server = McpServer.builder().name("echo").version("1")
        .tool(Tool.builder("echo").description("Returns its text")
                .inputSchema("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}")
                .build(),
            (ctx, args) -> {
              ctx.progress(1, 1.0, "echoed");
              return CallToolResult.text(args.path("text").asString(""));
            })
        .build();
    try (McpHttpServer http = McpHttpServer.builder(server).host("127.0.0.1").port(0).start()) {
      assertThat(ClientDemo.echo(http.endpoint(), "hello"))
          .isEqualTo("hello");
    } finally {
      server.close();
    }
  }

  @Test
  void theReadmeShowsTheClientVerbatim() throws Exception {
    String source = Files.readString(Path.of("src/main/java/example/ClientDemo.java"));
    String readme = Files.readString(Path.of("../../README.md"));
    String body = source.substring(source.indexOf("import "), source.indexOf("  public static void main"))
        .strip();
    assertThat(readme).contains(body);
  }
}
