package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestObservation;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.ElicitResult;
import dev.keel.mcp.http.McpHttpServer;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A stateless call's one timeout covers its input rounds: when the host's handler answers after
 * the deadline, the call ends in a timeout and no further round reaches the server. Found by
 * the 30-minute soak, where an abandoned elicitation's call was re-sent with a 1 ms budget and
 * sometimes completed long after its caller's timeout.
 */
class StatelessInputDeadlineTest {

  @Test
  void noInputRoundIsSentAfterTheCallsDeadline() {
    AtomicInteger calls = new AtomicInteger();
    McpHttpServer http = McpHttpServer.builder(FixtureServer.create(b -> b.observer(request -> {
      if (request.method().equals("tools/call")) {
        calls.incrementAndGet();
      }
      return RequestObservation.NONE;
    }))).port(0).start();
    try (McpClient client = McpClient.builder(StreamableHttpTransport.builder(http.endpoint())
            .build()).era(Era.AUTO)
        .elicitation(request -> {
          Thread.sleep(600);
          return new ElicitResult(ElicitResult.Action.ACCEPT, McpJson.standard().parseObject(
              "{\"username\":\"ada\",\"email\":\"ada@example.com\"}"), null);
        })
        .connect()) {
      assertThat(client.era()).isEqualTo(Era.MODERN);
      assertThatThrownBy(() -> client.callTool("test_elicitation",
          McpJson.standard().parseObject("{\"message\":\"late\"}"),
          CallOptions.defaults().withTimeout(Duration.ofMillis(200))))
          .isInstanceOf(RequestTimeoutException.class)
          .hasMessageContaining("tools/call").hasMessageContaining("200 ms");
      assertThat(calls.get()).as("tools/call rounds the server saw").isEqualTo(1);
    } finally {
      http.close();
    }
  }
}
