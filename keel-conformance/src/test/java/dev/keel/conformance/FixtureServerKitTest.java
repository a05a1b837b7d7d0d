package dev.keel.conformance;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.test.McpTest;
import dev.keel.mcp.test.McpTestClient;
import dev.keel.mcp.test.McpTestServer;
import dev.keel.mcp.test.McpTestTarget;
import dev.keel.mcp.test.PendingCall;
import dev.keel.mcp.test.Replies;
import java.time.Duration;

/**
 * The conformance fixture server through the test kit, in both eras, in-process and over HTTP:
 * the tool behaviour the official suites check, without node and without a raw-HTTP helper, so a
 * regression shows here first, named by era and transport.
 */
class FixtureServerKitTest {

  @McpTestServer
  static McpServer server() {
    return FixtureServer.create();
  }

  @McpTest
  void contentAndToolErrors(McpTestClient client) {
    assertThat(client.call("test_simple_text")).succeeded()
        .hasText("This is a simple text response for testing.");
    assertThat(client.call("test_error_handling")).isError()
        .hasText("This tool intentionally returns an error for testing");
    assertThat(client.call("echo", "{\"text\":\"through the kit\"}")).succeeded()
        .textContains("through the kit");
  }

  @McpTest
  void progressArrivesInOrderAndEndsAtTheTotal(McpTestClient client) {
    assertThat(client.call("test_tool_with_progress")).succeeded()
        .textContains("Progress reported for token")
        .progress().isMonotonic().hasCount(3).endsAt(100, 100.0)
        .hasMessages("Completed step 0 of 100", "Completed step 50 of 100",
            "Completed step 100 of 100");
  }

  @McpTest
  void logMessagesReachTheClient(McpTestTarget target) {
    McpTestClient client = target.connect(b -> b.logLevel(LoggingLevel.INFO));
    assertThat(client.call("test_tool_with_logging")).succeeded();
    assertThat(client.notifications())
        .arrives("notifications/message", 3, Duration.ofSeconds(5))
        .hasLog(LoggingLevel.INFO, "Tool execution started")
        .hasLog(LoggingLevel.INFO, "Tool execution completed");
  }

  @McpTest
  void samplingAndElicitationAreAnsweredByScriptedReplies(McpTestTarget target) {
    McpTestClient client = target.connect(b -> b
        .sampling(Replies.sample("four"))
        .elicitation(Replies.accept("{\"username\":\"ada\",\"email\":\"ada@example.com\"}")));
    assertThat(client.call("test_sampling", "{\"prompt\":\"2+2?\"}")).succeeded()
        .hasText("LLM response: four");
    assertThat(client.call("test_elicitation", "{\"message\":\"Who are you?\"}")).succeeded()
        .textContains("action=accept").textContains("ada@example.com");
    assertThat(client.elicitations()).singleElement()
        .satisfies(r -> assertThat(r.message()).isEqualTo("Who are you?"));
  }

  @McpTest
  void aCancelledCallStopsAndTheSessionGoesOn(McpTestClient client) throws Exception {
    long started = System.nanoTime();
    PendingCall call = client.start("test_sleep", "{\"ms\":30000}");
    Thread.sleep(200); // test_sleep reports nothing while it runs: let it reach its handler
    assertThat(call.cancel().await(Duration.ofSeconds(10))).wasCancelled();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    assertThat(client.call("test_simple_text")).succeeded();
  }
}
