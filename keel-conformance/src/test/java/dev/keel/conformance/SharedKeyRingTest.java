package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.redis.TestRedis;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Issue 17, the key ring: two {@code keel fixtures --redis} nodes share it, so the second round
 * of a multi-round-trip call (2026-07-28) may land on the other node, as a load balancer without
 * stickiness sends it; a node without {@code --redis} refuses the same state.
 */
class SharedKeyRingTest {

  private static final HttpClient HTTP = HttpClient.newHttpClient();
  private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
      + "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}";
  private static final String TOOL = "test_input_required_result_elicitation";

  private static TestRedis redis;
  private static KeelProcess a;
  private static KeelProcess b;
  private static KeelProcess alone;

  @BeforeAll
  static void start() throws Exception {
    redis = TestRedis.start();
    a = KeelProcess.fixtures("--redis", redis.uri());
    b = KeelProcess.fixtures("--redis", redis.uri());
    alone = KeelProcess.fixtures();
  }

  @AfterAll
  static void stop() throws Exception {
    for (KeelProcess p : new KeelProcess[] {a, b, alone}) {
      if (p != null) {
        p.close();
      }
    }
    if (redis != null) {
      redis.close();
    }
  }

  private static JsonNode call(KeelProcess node, int id, String extra) throws Exception {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"" + TOOL + "\"," + extra + META + "}}";
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(node.url()))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "tools/call")
        .header("Mcp-Name", TOOL)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
    String text = r.body();
    int data = text.lastIndexOf("data: ");
    return McpJson.standard().parse(data >= 0 ? text.substring(data + 6).strip() : text);
  }

  private static String answer(String state) {
    return "\"requestState\":\"" + state + "\",\"inputResponses\":{\"user_name\":{\"action\":"
        + "\"accept\",\"content\":{\"name\":\"Cluster\"}}},";
  }

  @Test
  void theSecondRoundOpensOnTheOtherNode() throws Exception {
    JsonNode first = call(a, 1, "");
    assertThat(first.at("/result/resultType").asString()).isEqualTo("input_required");
    String state = first.at("/result/requestState").asString();

    JsonNode onB = call(b, 2, answer(state));
    assertThat(onB.at("/result/content/0/text").asString()).as("%s", onB)
        .isEqualTo("Hello, Cluster!");

    JsonNode elsewhere = call(alone, 3, answer(state));
    assertThat(elsewhere.at("/error/code").asInt()).as("%s", elsewhere).isEqualTo(-32602);
    assertThat(elsewhere.at("/error/message").asString()).contains("requestState");
  }
}
