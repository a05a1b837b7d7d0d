package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.ProtocolVersion;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import dev.keel.mcp.core.schema.Tool;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Keel client with the era left to detection against a real FastMCP for TypeScript server
 * (npm {@code fastmcp} 4.20.16, {@code httpStream}; {@code ts/fastmcp-server.mjs}), a legacy
 * server that checks {@code MCP-Protocol-Version} on every request, {@code initialize}
 * included. The probe's {@code server/discover} is refused with 400, so the client falls back
 * to {@code initialize}, which must start clean: no 2026-07-28 header left over from the probe.
 */
class FastMcpInteropTest {

  private static NodeServer fastmcp;

  @TempDir
  static Path scratch;

  @BeforeAll
  static void start() throws Exception {
    NpmTools.ensureInstalled();
    fastmcp = NodeServer.startHttp("fastmcp-server.mjs");
  }

  @AfterAll
  static void stop() throws InterruptedException {
    if (fastmcp != null) {
      fastmcp.close();
    }
  }

  @Test
  void theJavaClientWithEraAutoFallsBackToALegacySessionAndCallsATool() {
    try (McpClient client = McpClient.builder(
            StreamableHttpTransport.builder(fastmcp.endpoint()).build())
        .era(Era.AUTO).requestTimeout(Duration.ofSeconds(30)).connect()) {
      assertThat(client.era()).as(fastmcp.log()).isEqualTo(Era.LEGACY);
      assertThat(ProtocolVersion.isLegacy(client.protocolVersion())).isTrue();
      assertThat(client.serverInfo().name()).isEqualTo("fastmcp-interop");
      assertThat(client.transport().sessionId()).isNotBlank();
      assertThat(client.listTools()).extracting(Tool::name).contains("add");
      CallToolResult sum = client.callTool("add",
          McpJson.standard().parseObject("{\"a\":2,\"b\":3}"));
      assertThat(sum.isError()).isNotEqualTo(Boolean.TRUE);
      assertThat(((TextContent) sum.content().get(0)).text()).isEqualTo("5");
    }
  }

  @Test
  void keelCallWithEraAutoListsAndCallsTheTool() throws Exception {
    String url = fastmcp.endpoint().toString();
    Run tools = keel("tools", "--era", "auto", url);
    assertThat(tools.exit()).as(tools.err() + fastmcp.log()).isZero();
    assertThat(tools.out()).containsPattern("(?m)^add +Adds two numbers$");

    Run call = keel("call", "--era", "auto", url, "add", "{\"a\":20,\"b\":22}");
    assertThat(call.exit()).as(call.err() + fastmcp.log()).isZero();
    assertThat(call.out()).isEqualTo("42\n");
  }

  /** What a finished command printed. */
  record Run(int exit, String out, String err) {}

  private static Run keel(String... args) throws Exception {
    Path out = Files.createTempFile(scratch, "out", ".txt");
    Path err = Files.createTempFile(scratch, "err", ".txt");
    Process p = new ProcessBuilder(KeelProcess.command(args)).redirectOutput(out.toFile())
        .redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
    p.getOutputStream().close();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly().waitFor();
      throw new AssertionError("keel " + String.join(" ", args) + " did not finish");
    }
    return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
        Files.readString(err, StandardCharsets.UTF_8));
  }
}
