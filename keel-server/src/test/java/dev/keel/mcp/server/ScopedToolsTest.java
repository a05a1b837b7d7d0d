package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A tool's required scopes hold in the engine itself, for transports that cannot answer 403
 * (stdio, in-memory) and behind any that forgot to ask: a scope-based principal without them
 * neither sees the tool nor runs it; a principal that is not scope-based is not restricted.
 */
class ScopedToolsTest {

  private final AtomicInteger ran = new AtomicInteger();
  private final McpServer server = McpServer.builder().name("scoped").version("1")
      .tool(Tool.builder("open").description("For anyone").build(),
          (ctx, args) -> CallToolResult.text("open"))
      .tool(Tool.builder("admin").description("Needs mcp:admin").build(),
          ToolOptions.defaults().withRequiredScopes("mcp:admin"), (ctx, args) -> {
            ran.incrementAndGet();
            return CallToolResult.text("admin");
          })
      .build();
  private final EngineFixture fixture = new EngineFixture(server);

  @AfterEach
  void close() {
    fixture.close();
  }

  private Optional<JsonRpcMessage> handle(Principal who, ServerSession session,
      JsonRpcRequest request) {
    return server.engine().handle(session, who, request, CollectingStream.open());
  }

  @Test
  void aScopeBasedPrincipalWithoutTheScopeNeitherSeesNorRunsTheTool() {
    Principal user = new Principal("u", "oauth:u", Map.of(), Set.of("mcp:tools"));
    ServerSession session = fixture.initialize(user, EngineFixture.NOTHING);

    String listed = EngineFixture.resultOf(handle(user, session,
        new JsonRpcRequest(RequestId.of(1), "tools/list", null))).toString();
    assertThat(listed).contains("\"open\"").doesNotContain("\"admin\"");

    Optional<JsonRpcMessage> refused = handle(user, session,
        EngineFixture.toolCall(RequestId.of(2), "admin", null));
    assertThat(refused).get().isInstanceOf(JsonRpcErrorResponse.class);
    JsonRpcErrorResponse error = (JsonRpcErrorResponse) refused.get();
    assertThat(error.error().code()).isEqualTo(ErrorCodes.UNAUTHORIZED);
    assertThat(error.error().message()).contains("mcp:admin");
    assertThat(ran).as("the handler never ran").hasValue(0);
  }

  @Test
  void withTheScopeOrWithoutScopesAtAllTheToolRuns() {
    Principal admin = new Principal("a", "oauth:a", Map.of(), Set.of("mcp:admin"));
    ServerSession session = fixture.initialize(admin, EngineFixture.NOTHING);
    assertThat(EngineFixture.textOf(EngineFixture.resultOf(handle(admin, session,
        EngineFixture.toolCall(RequestId.of(3), "admin", null))))).isEqualTo("admin");

    Principal apiKey = new Principal("ci", "apikey:ci");
    ServerSession keySession = fixture.initialize(apiKey, EngineFixture.NOTHING);
    assertThat(EngineFixture.textOf(EngineFixture.resultOf(handle(apiKey, keySession,
        EngineFixture.toolCall(RequestId.of(4), "admin", null))))).isEqualTo("admin");
    assertThat(ran).hasValue(2);
  }

  @Test
  void scopesAreSingleTokens() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> ToolOptions.defaults().withRequiredScopes("two words"))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
