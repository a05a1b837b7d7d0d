package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.core.schema.ToolExecution;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@link ToolOptions#withNonBlocking()}: what it may not be combined with (everything that waits
 * for the client), that it never interrupts, and which calls the engine lets a transport run on
 * its own thread.
 */
class NonBlockingToolOptionsTest {

  static final ToolHandler TEXT = (ctx, args) -> CallToolResult.text("ok");

  @Test
  void nonBlockingTurnsInterruptsOffAndKeepsTheOtherSettings() {
    ToolOptions options = ToolOptions.defaults().withTimeout(Duration.ofSeconds(3))
        .withNonBlocking();
    assertThat(options.nonBlocking()).isTrue();
    assertThat(options.interruptOnCancel()).isFalse();
    assertThat(options.timeout()).isEqualTo(Duration.ofSeconds(3));
    assertThat(options.withTimeout(Duration.ofSeconds(1)).nonBlocking()).isTrue();
    assertThat(ToolOptions.defaults().nonBlocking()).isFalse();
  }

  @Test
  void nonBlockingCannotBeCombinedWithWhatWaitsForTheClient() {
    assertThatThrownBy(() -> ToolOptions.defaults().withApproval().withNonBlocking())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("approval");
    assertThatThrownBy(() -> ToolOptions.defaults().withNonBlocking().withApproval())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("approval");
    assertThatThrownBy(() -> ToolOptions.defaults().withNonBlocking()
        .withTaskSupport(TaskSupport.OPTIONAL))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("task");
    assertThatThrownBy(() -> ToolOptions.defaults().withNonBlocking().withTaskOnDemand())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("task");
    // Forbidding tasks outright is what a non-blocking tool does anyway.
    assertThat(ToolOptions.defaults().withNonBlocking().withTaskSupport(TaskSupport.FORBIDDEN)
        .nonBlocking()).isTrue();
  }

  @Test
  void aListingThatOffersTasksRefusesNonBlockingAtRegistrationNamingTheTool() {
    Tool listed = Tool.builder("report").execution(new ToolExecution("optional")).build();
    assertThatThrownBy(() -> McpServer.builder()
        .tool(listed, ToolOptions.defaults().withNonBlocking(), TEXT).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("tool report").hasMessageContaining("task");
  }

  @Test
  void onlyCallsOfNonBlockingToolsRunInline() {
    try (McpServer server = McpServer.builder()
        .tool(Tool.builder("quick").build(), ToolOptions.defaults().withNonBlocking(), TEXT)
        .tool(Tool.builder("slow").build(), TEXT)
        .build()) {
      var engine = server.engine();
      assertThat(inline(engine, EngineFixture.toolCall(RequestId.of(1), "quick", null)))
          .isTrue();
      assertThat(inline(engine, EngineFixture.toolCall(RequestId.of(2), "slow", null)))
          .isFalse();
      assertThat(inline(engine, EngineFixture.toolCall(RequestId.of(3), "missing", null)))
          .isFalse();
      assertThat(inline(engine, new dev.keel.mcp.core.jsonrpc.JsonRpcRequest(
          RequestId.of(4), "tools/list", null))).isFalse();
    }
  }

  @Test
  void theAnnotationSaysTheSame() {
    try (McpServer server = McpServer.builder().toolsFrom(new Annotated()).build()) {
      assertThat(inline(server.engine(), EngineFixture.toolCall(RequestId.of(1), "add",
          "\"arguments\":{\"a\":1,\"b\":2}"))).isTrue();
    }
  }

  static boolean inline(dev.keel.mcp.server.transport.ServerEngine engine,
      dev.keel.mcp.core.jsonrpc.JsonRpcRequest request) {
    return engine.call(dev.keel.mcp.server.transport.Edge.of(null, Principal.local(),
        dev.keel.mcp.core.protocol.Era.LEGACY), request).runsInline();
  }

  /** A tool declared non-blocking by annotation. */
  public static final class Annotated {
    /** Adds two numbers. */
    @McpTool(name = "add", nonBlocking = true)
    public int add(int a, int b) {
      return a + b;
    }
  }
}
