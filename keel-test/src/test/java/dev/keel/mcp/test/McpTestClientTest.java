package dev.keel.mcp.test;

import static dev.keel.mcp.test.McpAssertions.assertThat;
import static dev.keel.mcp.test.McpAssertions.assertThatError;
import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Root;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The test client against a real server in all four combinations of transport and era: what it
 * records (progress, logs, notifications, the server's questions), how it answers (scripted
 * replies), and how it reports errors, cancellation and timeouts.
 */
class McpTestClientTest {

  static final Duration WAIT = Duration.ofSeconds(5);

  private McpServer server;
  private final List<McpTestClient> clients = new ArrayList<>();

  static Stream<Arguments> combinations() {
    List<Arguments> all = new ArrayList<>();
    for (TestTransport t : TestTransport.values()) {
      for (Era e : List.of(Era.LEGACY, Era.MODERN)) {
        all.add(Arguments.of(t, e));
      }
    }
    return all.stream();
  }

  @BeforeEach
  void start() {
    server = KitServer.create();
  }

  @AfterEach
  void stop() {
    clients.forEach(McpTestClient::close);
    server.close();
  }

  private McpTestClient connect(TestTransport transport, Era era,
      java.util.function.Consumer<McpTestClient.Builder> configure) {
    McpTestClient.Builder b = McpTestClient.builder(server).transport(transport).era(era);
    configure.accept(b);
    McpTestClient c = b.connect();
    clients.add(c);
    return c;
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void connectsInTheAskedEraOverTheAskedTransport(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> { });
    assertThat(client.era()).isEqualTo(era);
    assertThat(client.transport()).isEqualTo(transport);
    assertThat(client.endpoint() == null).isEqualTo(transport == TestTransport.IN_MEMORY);
    if (transport == TestTransport.HTTP) {
      assertThat(client.endpoint().getHost()).isEqualTo("127.0.0.1");
    }
    assertThat(client.tools()).extracting(Tool::name).contains("echo", "count", "greet");
    assertThat(client.call("echo", "{\"text\":\"hi\"}")).succeeded().hasText("hi");
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void recordsEveryProgressReportOfACallInOrder(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> { });
    assertThat(client.call("count")).succeeded().hasText("counted")
        .progress().isMonotonic().hasCount(3).endsAt(3, 3.0)
        .hasMessages("step 1", "step 2", "step 3");
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void recordsLogMessagesAtTheLevelItAskedFor(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> b.logLevel(LoggingLevel.INFO));
    assertThat(client.call("chatty")).succeeded();
    assertThat(client.notifications()).arrives("notifications/message", WAIT)
        .hasLog(LoggingLevel.INFO, "hello from chatty");
    assertThat(client.logs()).extracting(RecordedNotifications.Log::text)
        .doesNotContain("details");
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void answersElicitationWithScriptedRepliesInOrderAndRecordsTheQuestions(
      TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era,
        b -> b.elicitation(Replies.accept("{\"name\":\"Ada\"}"), Replies.decline()));
    assertThat(client.call("greet")).succeeded().hasText("Hello, Ada!");
    assertThat(client.call("greet")).isError().hasText("no name: DECLINE");
    assertThat(client.elicitations()).extracting(r -> r.message())
        .containsExactly("Your name?", "Your name?");
    client.enqueue(Replies.accept("{\"name\":\"Grace\"}"));
    assertThat(client.call("greet")).hasText("Hello, Grace!");
    assertThat(client.unansweredQuestions()).isZero();
    assertThat(client.call("greet").result()).as("no reply left: the client failed").isNull();
    assertThat(client.unansweredQuestions()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void answersSamplingAndRootsAndDeclaresOnlyWhatItWasGiven(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> b
        .sampling(Replies.sample("It is sunny."))
        .roots(new Root("file:///tmp/a", "a", null), new Root("file:///tmp/b", "b", null)));
    assertThat(client.call("ask_model")).succeeded().hasText("model said: It is sunny.");
    assertThat(client.samplings()).hasSize(1);
    assertThat(client.call("roots")).succeeded().hasText("2 roots");
    assertThat(client.rootsRequests()).isEqualTo(1);
    // Elicitation was never declared: the server refuses to ask.
    assertThat(client.call("greet")).failedWith(ErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY);
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void readsStructuredContentByPathAndToolErrorsAsResults(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> { });
    assertThat(client.call("stats")).succeeded().hasText("2 rows")
        .hasStructured("$.total", 2)
        .hasStructured("$.rows[1].name", "b")
        .hasStructured("/rows/1/n", 2.5)
        .hasStructuredContent("{\"rows\":[{\"name\":\"a\",\"n\":1.0},{\"name\":\"b\",\"n\":2.5}],"
            + "\"total\":2}");
    assertThat(client.call("broken")).isError().hasText("boom");
    assertThat(client.call("nope")).failedWith(ErrorCodes.INVALID_PARAMS)
        .messageContains("Unknown tool");
    // Each era's code for a missing resource: -32002 up to 2025-11-25, -32602 in 2026-07-28.
    assertThatError(() -> client.mcp().readResource("mem://missing"))
        .hasCode(era == Era.LEGACY ? ErrorCodes.RESOURCE_NOT_FOUND : ErrorCodes.INVALID_PARAMS)
        .messageContains("Resource not found");
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void aStartedCallCanBeWatchedAndCancelledWhichInterruptsTheHandler(TestTransport transport,
      Era era) throws Exception {
    McpTestClient client = connect(transport, era, b -> { });
    PendingCall call = client.start("block", "{}").awaitProgress(1, WAIT);
    assertThat(call.isDone()).isFalse();
    assertThat(call.cancel().await()).wasCancelled();
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (!KitServer.BLOCK_INTERRUPTED.get() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(KitServer.BLOCK_INTERRUPTED.get()).as("the handler was interrupted").isTrue();
    assertThat(client.call("echo", "{\"text\":\"after\"}")).hasText("after");
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void aCallPastItsTimeoutIsReportedAsTimedOut(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> { });
    assertThat(client.call("block", dev.keel.mcp.core.McpJson.object(), Duration.ofMillis(300)))
        .timedOut();
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void runsACallAsATaskToItsResult(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> { });
    client.tools();
    assertThat(client.callAsTask("slow_task", "{}")).ranAsTask().succeeded()
        .hasText("task done");
  }

  @ParameterizedTest(name = "{1} over {0}")
  @MethodSource("combinations")
  void recordsResourceUpdatesOfASubscription(TestTransport transport, Era era) {
    McpTestClient client = connect(transport, era, b -> { });
    try (var subscription = client.mcp().subscribe(KitServer.NOTE)) {
      assertThat(server.resourceUpdated(KitServer.NOTE)).isEqualTo(1);
      assertThat(client.notifications())
          .arrives("notifications/resources/updated", WAIT)
          .contains("notifications/resources/updated", "$.uri", KitServer.NOTE);
    }
  }

  @Test
  void recordsListChangesOnTheLegacyListeningStreamInProcessAndOverHttp() {
    for (TestTransport transport : TestTransport.values()) {
      McpTestClient client = connect(transport, Era.LEGACY, b -> { });
      client.notifications().clear();
      server.addTool(Tool.builder("extra_" + transport).build(),
          (ctx, args) -> dev.keel.mcp.core.schema.CallToolResult.text("extra"));
      assertThat(client.notifications()).arrives("notifications/tools/list_changed", WAIT);
      assertThat(client.tools()).extracting(Tool::name).contains("extra_" + transport);
    }
  }

  @Test
  void closingTheClientStopsTheHttpServerItStartedButNotTheMcpServer() throws Exception {
    McpTestClient client = connect(TestTransport.HTTP, Era.LEGACY, b -> { });
    java.net.URI endpoint = client.endpoint();
    client.close();
    try (java.net.Socket s = new java.net.Socket()) {
      s.connect(new java.net.InetSocketAddress("127.0.0.1", endpoint.getPort()), 1000);
      org.junit.jupiter.api.Assertions.fail("the HTTP server still listens on " + endpoint);
    } catch (java.io.IOException expected) {
      // refused: stopped
    }
    McpTestClient again = connect(TestTransport.IN_MEMORY, Era.LEGACY, b -> { });
    assertThat(again.call("echo", "{\"text\":\"still\"}")).hasText("still");
  }
}
