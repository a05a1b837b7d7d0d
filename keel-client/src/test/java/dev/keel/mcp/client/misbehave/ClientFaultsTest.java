package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.ClientProbe;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.InvalidServerResponseException;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.SessionExpiredException;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.TextContent;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every {@link FaultPolicy} in each era where it applies: the call ends in a clear exception (or
 * a documented safe outcome) within a bounded time; afterwards nothing waits, no stream is still
 * read, the next call works, and once the client is closed its threads and connections are gone.
 * The table in docs/reliability.md ("Client under faults") is this test.
 */
class ClientFaultsTest {

  /** The call timeout where only a timeout can end the call: short, the suite is timed. */
  private static final Duration TIMEOUT = Duration.ofMillis(250);
  /** The call timeout of every other fault: never reached, the fault ends the call first. */
  private static final Duration NO_TIMEOUT = Duration.ofSeconds(10);
  /** How long a fault that ends the call by itself may take (a loaded CI machine included). */
  private static final Duration PROMPT = Duration.ofSeconds(3);
  private static final Duration SETTLE = Duration.ofSeconds(3);
  private static final int MAX_EVENT = 16 * 1024;
  private static final Duration LISTENING_CEILING = Duration.ofMillis(300);

  /**
   * What a fault must end in.
   *
   * @param type the exception, or null for a call that succeeds
   * @param fragments what the message (or, on success, the result's text) must contain
   * @param status the exception's HTTP status, or -1 for any
   */
  record Outcome(Class<? extends Throwable> type, List<String> fragments, int status) {
    static Outcome fails(Class<? extends Throwable> type, String... fragments) {
      return new Outcome(type, List.of(fragments), -1);
    }

    static Outcome succeeds(String text) {
      return new Outcome(null, List.of(text), -1);
    }

    Outcome withStatus(int value) {
      return new Outcome(type, fragments, value);
    }
  }

  static Stream<Arguments> faults() {
    return Stream.of(FaultPolicy.values()).flatMap(f -> Stream.of(Era.LEGACY, Era.MODERN)
        .filter(era -> era == Era.LEGACY || !f.legacyOnly())
        .map(era -> Arguments.of(f, era)));
  }

  static Outcome expected(FaultPolicy fault, Era era) {
    return switch (fault) {
      case DROP_BEFORE_RESPONSE -> Outcome.fails(TransportException.class,
          "the connection to the server broke before tools/call was answered");
      case STALL, STALL_MID_STREAM, LONG_RETRY -> Outcome.fails(RequestTimeoutException.class,
          "tools/call got no answer within " + TIMEOUT.toMillis() + " ms");
      case CLOSE_AFTER_EVENTS -> Outcome.fails(TransportException.class,
          "the tools/call response stream ended before the answer after 2 resumptions");
      case SESSION_GONE_MID_CALL -> era == Era.LEGACY
          ? Outcome.fails(SessionExpiredException.class, "session expired (HTTP 404)")
          : Outcome.fails(TransportException.class,
              "resuming the tools/call response stream failed: HTTP 404").withStatus(404);
      case OVERSIZED_EVENT -> Outcome.fails(TransportException.class,
          "the tools/call response stream: ", "exceeded " + MAX_EVENT + " bytes (maxEventBytes)");
      case MALFORMED_EVENT -> Outcome.fails(InvalidServerResponseException.class,
          "the tools/call response stream ended before the answer",
          "event 1 is not a JSON-RPC message: ");
      case MALFORMED_JSON_BODY -> Outcome.fails(InvalidServerResponseException.class,
          "the server's JSON answer to tools/call is not a JSON-RPC message: ");
      case REDIRECT_OFF_ORIGIN -> Outcome.fails(TransportException.class,
          "the server redirected tools/call (HTTP 307 to http://127.0.0.1:",
          "redirects are never followed").withStatus(307);
      case HUGE_RETRY -> Outcome.fails(TransportException.class,
          "the server asked to wait 999999999 ms (retry:) before resuming the tools/call "
              + "response stream; the client waits at most 60000 ms");
      case DUPLICATE_RESPONSE_ID -> Outcome.succeeds("first");
      case UNSOLICITED_ID -> Outcome.fails(TransportException.class,
          "the server answered tools/call (id ", "with a response to id 987654, not to this "
              + "request");
      case WRONG_CONTENT_TYPE -> Outcome.fails(TransportException.class,
          "answered tools/call with HTTP 200 and Content-Type text/html",
          "neither application/json nor text/event-stream").withStatus(200);
      case LISTENING_HUGE_RETRY -> Outcome.succeeds("ok");
    };
  }

  private static Duration timeout(FaultPolicy fault) {
    return switch (fault) {
      case STALL, STALL_MID_STREAM, LONG_RETRY -> TIMEOUT;
      default -> NO_TIMEOUT;
    };
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("faults")
  void theCallEndsClearlyAndLeavesNothingBehind(FaultPolicy fault, Era era) throws Exception {
    Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
    Outcome outcome = expected(fault, era);
    try (FaultServer server = new FaultServer(); OtherOrigin other = new OtherOrigin()) {
      server.otherOrigin(other.url());
      server.arm(fault);
      McpClient client = connect(server, era, fault);
      try {
        long start = System.nanoTime();
        RuntimeException thrown = null;
        CallToolResult result = null;
        try {
          result = client.callTool("probe", McpJson.object(),
              CallOptions.defaults().withTimeout(timeout(fault)));
        } catch (RuntimeException e) {
          thrown = e;
        }
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        // the outcomes, as the docs' table quotes them
        System.out.printf("%s (%s): %d ms: %s%n", fault, era, took.toMillis(),
            thrown == null ? "answered: " + text(result)
                : thrown.getClass().getSimpleName() + ": " + thrown.getMessage());

        if (outcome.type() == null) {
          assertThat(thrown).as("the call's failure").isNull();
          assertThat(text(result)).contains(outcome.fragments());
        } else {
          assertThat(thrown).as("the call's failure").isInstanceOf(outcome.type());
          assertThat(thrown.getMessage()).contains(outcome.fragments());
          if (outcome.status() >= 0) {
            assertThat(((TransportException) thrown).httpStatus()).isEqualTo(outcome.status());
          }
        }
        assertThat(took).as("time to the outcome")
            .isLessThan(timeout(fault) == TIMEOUT ? TIMEOUT.plus(PROMPT) : PROMPT);

        // nothing waits and nothing is still read: the thread that read the stream is free
        settle().untilAsserted(() -> {
          assertThat(ClientProbe.pendingRequests(client)).as("pending requests").isZero();
          assertThat(ClientProbe.liveExchanges(client)).as("streams still read").isZero();
          assertThat(ClientProbe.questionsInFlight(client)).as("questions").isZero();
        });
        switch (fault) {
          // the client hung up on an answer it no longer reads
          case STALL, STALL_MID_STREAM, DUPLICATE_RESPONSE_ID ->
              settle().until(() -> server.hangUps() >= 1);
          case REDIRECT_OFF_ORIGIN -> assertThat(other.connections()).isZero();
          case LISTENING_HUGE_RETRY -> settle().atMost(LISTENING_CEILING.plus(SETTLE))
              .until(() -> server.seen().stream().anyMatch(r -> r.verb().equals("GET")
                  && "listen-1".equals(r.lastEventId())));
          default -> { }
        }

        CallToolResult next = client.callTool("probe", McpJson.object(),
            CallOptions.defaults().withTimeout(NO_TIMEOUT));
        assertThat(text(next)).startsWith("ok");
        if (fault == FaultPolicy.SESSION_GONE_MID_CALL && era == Era.LEGACY) {
          assertThat(server.sessionsStarted()).isEqualTo(2);
          assertThat(client.transport().sessionId()).isEqualTo("session-2");
        }
      } finally {
        client.close();
      }

      assertThat(ClientProbe.threadsEnded(client, SETTLE)).as("the client's executors ended")
          .isTrue();
      settle().untilAsserted(() -> assertThat(clientThreadsLeft(before))
          .as("threads of the closed client").isEmpty());
      settle().untilAsserted(() -> assertThat(server.openConnections())
          .as("connections the closed client left open").isZero());
    }
  }

  static Stream<Arguments> stalls() {
    return Stream.of(FaultPolicy.STALL, FaultPolicy.STALL_MID_STREAM).flatMap(f ->
        Stream.of(Era.LEGACY, Era.MODERN).map(era -> Arguments.of(f, era)));
  }

  @ParameterizedTest(name = "{0} ({1})")
  @MethodSource("stalls")
  void closingTheClientEndsTheCallInFlightAndItsConnection(FaultPolicy fault, Era era)
      throws Exception {
    Set<Thread> before = new HashSet<>(Thread.getAllStackTraces().keySet());
    try (FaultServer server = new FaultServer()) {
      server.arm(fault);
      McpClient client = connect(server, era, fault);
      CompletableFuture<RuntimeException> call = new CompletableFuture<>();
      Thread caller = new Thread(() -> {
        try {
          client.callTool("probe", McpJson.object(),
              CallOptions.defaults().withTimeout(NO_TIMEOUT));
          call.complete(null);
        } catch (RuntimeException e) {
          call.complete(e);
        }
      }, "test-caller");
      caller.start();
      settle().until(() -> server.seen().stream()
          .anyMatch(r -> "tools/call".equals(r.method())));

      client.close();

      // the caller learns why, rather than "interrupted" from a reader thread that lost a race
      RuntimeException thrown = call.get(PROMPT.toMillis(), TimeUnit.MILLISECONDS);
      assertThat(thrown).isInstanceOf(ConnectionClosedException.class)
          .hasMessageContaining("the client is closed");
      caller.join(PROMPT.toMillis());
      settle().until(() -> server.hangUps() >= 1);
      assertThat(ClientProbe.threadsEnded(client, SETTLE)).isTrue();
      settle().untilAsserted(() -> assertThat(clientThreadsLeft(before)).isEmpty());
      settle().untilAsserted(() -> assertThat(server.openConnections()).isZero());
    }
  }

  /** Awaitility polls every 100 ms by default: here most conditions hold at once. */
  private static ConditionFactory settle() {
    return await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).atMost(SETTLE);
  }

  private static McpClient connect(FaultServer server, Era era, FaultPolicy fault) {
    StreamableHttpTransport.Builder http = StreamableHttpTransport.builder(server.endpoint())
        .connectTimeout(Duration.ofSeconds(2))
        .maxEventBytes(MAX_EVENT)
        .maxReconnects(2)
        .retryFloor(Duration.ofMillis(10));
    if (fault == FaultPolicy.LISTENING_HUGE_RETRY) {
      // the ceiling is 60 s; the test cannot wait that long to see the stream come back
      ClientProbe.retryCeiling(http, LISTENING_CEILING);
    }
    return McpClient.builder(http.build())
        .era(era)
        .connectTimeout(Duration.ofSeconds(5))
        .requestTimeout(NO_TIMEOUT)
        .connect();
  }

  private static String text(CallToolResult result) {
    return result.content().stream().filter(TextContent.class::isInstance)
        .map(c -> ((TextContent) c).text()).findFirst().orElse("");
  }

  /**
   * The client's platform threads still alive that were not there before: {@code keel-*}
   * everywhere, and the JDK {@code HttpClient}'s own where it can be shut down (JDK 21+; on JDK
   * 17 its selector thread lives until the client is collected). Virtual threads (the client's
   * readers on JDK 21+) are not listed here; {@link ClientProbe#threadsEnded} covers them.
   */
  private static List<String> clientThreadsLeft(Set<Thread> before) {
    boolean httpClientStops = Stream.of(HttpClient.class.getMethods())
        .anyMatch(m -> m.getName().equals("shutdownNow"));
    return Thread.getAllStackTraces().keySet().stream()
        .filter(t -> !before.contains(t) && t.isAlive())
        .map(Thread::getName)
        .filter(n -> n.startsWith("keel-") || (httpClientStops && n.startsWith("HttpClient-")))
        .toList();
  }
}
