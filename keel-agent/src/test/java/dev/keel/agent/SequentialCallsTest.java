package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A client that runs one statement after another never runs two at once, so it is never refused
 * for running too many. Found by the benchmark (issue 22): the worker that ran a statement gave
 * its slot back only after handing the result to the caller, so a caller calling again at once
 * could find its own slot still held, and on one busy core four such calls in a row refused a
 * sequential client. With one slot, every call after the first raced the release.
 */
class SequentialCallsTest {

  private static final MessageStream NOWHERE = message -> true;

  @Test
  void oneStatementAfterAnotherIsNeverRefusedForConcurrency() {
    try (DatabaseAgent agent = DatabaseAgent.builder()
        .limits(AgentLimits.defaults().withMaxConcurrentQueries(1)).build()) {
      ServerEngine engine = agent.server().engine();
      byte[] call = ("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{"
          + "\"name\":\"query\",\"arguments\":{\"sql\":\"SELECT name FROM regions\"},\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}")
          .getBytes(StandardCharsets.UTF_8);
      for (int i = 0; i < 500; i++) {
        JsonRpcMessage answer = engine.handle(null, Principal.local(),
            engine.codec().decode(call), NOWHERE).orElseThrow();
        assertThat(answer).isInstanceOf(JsonRpcResponse.class);
        assertThat(((JsonRpcResponse) answer).result().path("isError").asBoolean(false))
            .as("call %d: %s", i, new String(engine.codec().encode(answer),
                StandardCharsets.UTF_8))
            .isFalse();
      }
    }
  }
}
