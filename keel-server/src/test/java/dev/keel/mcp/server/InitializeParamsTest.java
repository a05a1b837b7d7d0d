package dev.keel.mcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.ServerSession;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * An initialize's params are bound once per distinct value (the same client connecting again
 * sends the same ones): each session still gets what its own client declared.
 */
class InitializeParamsTest {

  private static final McpJson JSON = McpJson.standard();

  @Test
  void eachSessionGetsWhatItsOwnClientDeclaredThoughEqualParamsAreBoundOnce() {
    McpServer server = McpServer.builder().name("init-params").version("1").build();
    try {
      ObjectNode first = params("client-a", "{\"roots\":{\"listChanged\":true}}");
      ServerSession a = initialize(server, first);
      ServerSession again = initialize(server, params("client-a",
          "{\"roots\":{\"listChanged\":true}}"));
      ServerSession b = initialize(server, params("client-b", "{\"elicitation\":{}}"));

      assertThat(a.clientInfo().name()).isEqualTo("client-a");
      assertThat(again.clientInfo().name()).isEqualTo("client-a");
      assertThat(b.clientInfo().name()).isEqualTo("client-b");
      assertThat(a.clientCapabilities().roots()).isNotNull();
      assertThat(b.clientCapabilities().roots()).isNull();
      assertThat(b.clientCapabilities().elicitation()).isNotNull();

      // the caller's tree changing afterwards changes no session and no later binding
      ((ObjectNode) first.get("clientInfo")).put("name", "changed");
      assertThat(a.clientInfo().name()).isEqualTo("client-a");
      assertThat(initialize(server, params("client-a", "{\"roots\":{\"listChanged\":true}}"))
          .clientInfo().name()).isEqualTo("client-a");
    } finally {
      server.close();
    }
  }

  @Test
  void malformedParamsAreRefusedEveryTimeNotOnlyTheFirst() {
    McpServer server = McpServer.builder().name("init-params").version("1").build();
    try {
      for (int i = 0; i < 3; i++) {
        InitializeOutcome outcome = server.engine().initialize(Principal.local(),
            new JsonRpcRequest(RequestId.of(i), "initialize",
                JSON.parseObject("{\"protocolVersion\":\"2025-11-25\",\"clientInfo\":7}")),
            null);
        assertThat(outcome.session()).isNull();
        assertThat(outcome.response()).isInstanceOf(JsonRpcErrorResponse.class);
        assertThat(((JsonRpcErrorResponse) outcome.response()).error().code()).isEqualTo(-32602);
      }
    } finally {
      server.close();
    }
  }

  private static ObjectNode params(String client, String capabilities) {
    return JSON.parseObject("{\"protocolVersion\":\"2025-11-25\",\"capabilities\":"
        + capabilities + ",\"clientInfo\":{\"name\":\"" + client + "\",\"version\":\"1\"}}");
  }

  private static ServerSession initialize(McpServer server, ObjectNode params) {
    InitializeOutcome outcome = server.engine().initialize(Principal.local(),
        new JsonRpcRequest(RequestId.of(1), "initialize", params), null);
    assertThat(outcome.response()).isInstanceOf(JsonRpcResponse.class);
    return outcome.session();
  }
}
