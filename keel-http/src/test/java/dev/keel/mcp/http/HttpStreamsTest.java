package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * SSE streams over real HTTP: request streams that end with their response, the listening
 * stream, resumption with {@code Last-Event-ID}, and cancellation reaching a running handler.
 */
class HttpStreamsTest {

  static McpServer server;
  static McpHttpServer http;
  static int port;
  static volatile CountDownLatch blockStarted = new CountDownLatch(1);
  static volatile CountDownLatch blockInterrupted = new CountDownLatch(1);
  static final AtomicBoolean blockFinished = new AtomicBoolean();
  static volatile String pollInlineThread;

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("logs").build(), (ctx, args) -> {
          ctx.log(LoggingLevel.INFO, "one");
          ctx.log(LoggingLevel.INFO, "two");
          return CallToolResult.text("done");
        })
        .tool(Tool.builder("poll").build(), (ctx, args) -> {
          ctx.closeStreamForPolling();
          Thread.sleep(300);
          ctx.log(LoggingLevel.INFO, "after the close");
          return CallToolResult.text("polled");
        })
        .tool(Tool.builder("pollInline").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              // Runs on the container thread: the close turns its inline answer into a stream.
              pollInlineThread = Thread.currentThread().getName();
              ctx.closeStreamForPolling();
              ctx.log(LoggingLevel.INFO, "inline after the close");
              return CallToolResult.text("polled inline");
            })
        .tool(Tool.builder("block").build(), (ctx, args) -> {
          blockStarted.countDown();
          try {
            Thread.sleep(30_000);
          } catch (InterruptedException e) {
            blockInterrupted.countDown();
            throw e;
          }
          blockFinished.set(true);
          return CallToolResult.text("finished");
        })
        .build();
    http = McpHttpServer.builder(server).port(0).start();
    port = http.port();
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @BeforeEach
  void resetLatches() {
    blockStarted = new CountDownLatch(1);
    blockInterrupted = new CountDownLatch(1);
    blockFinished.set(false);
  }

  static Map<String, String> headers(String session) {
    Map<String, String> h = new java.util.LinkedHashMap<>();
    h.put("Content-Type", "application/json");
    h.put("Accept", HttpGateTest.ACCEPT);
    if (session != null) {
      h.put("Mcp-Session-Id", session);
    }
    return h;
  }

  static String initialize() throws IOException {
    RawHttp.Response r = RawHttp.exchange(port, "POST", "/mcp", headers(null), HttpGateTest.INIT);
    String session = r.header("mcp-session-id");
    RawHttp.exchange(port, "POST", "/mcp", headers(session),
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return session;
  }

  static String call(int id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"" + tool + "\"}}";
  }

  static JsonNode json(SseClient.Event event) {
    return McpJson.standard().parse(event.data());
  }

  static SseClient listen(String session, String lastEventId) throws IOException {
    Map<String, String> h = headers(session);
    h.put("Accept", "text/event-stream");
    if (lastEventId != null) {
      h.put("Last-Event-ID", lastEventId);
    }
    return SseClient.open(port, "GET", h, null);
  }

  @Test
  void inv24_requestStreamIsPrimedCarriesMessagesAndEndsWithTheResponse() throws IOException {
    String session = initialize();
    try (SseClient sse = SseClient.open(port, "POST", headers(session), call(5, "logs"))) {
      assertThat(sse.head().status()).isEqualTo(200);
      assertThat(sse.head().header("content-type")).startsWith("text/event-stream");
      assertThat(sse.head().header("cache-control")).isEqualTo("no-cache");
      assertThat(sse.head().header("x-accel-buffering")).isEqualTo("no");
      List<SseClient.Event> events = sse.drain(5000);
      assertThat(sse.ended()).isTrue();
      SseClient.Event priming = events.get(0);
      assertThat(priming.id()).isNotBlank();
      assertThat(priming.data()).isEmpty();
      assertThat(priming.retry()).isNotBlank();
      List<SseClient.Event> messages = events.subList(1, events.size());
      assertThat(messages).hasSize(3);
      assertThat(messages).allSatisfy(e -> {
        assertThat(e.event()).isEqualTo("message");
        assertThat(e.id()).isNotBlank();
      });
      assertThat(json(messages.get(0)).get("method").asString())
          .isEqualTo("notifications/message");
      assertThat(json(messages.get(1)).get("params").get("data").asString()).isEqualTo("two");
      JsonNode last = json(messages.get(2));
      assertThat(last.get("id").asInt()).isEqualTo(5);
      assertThat(last.get("result").get("content").get(0).get("text").asString())
          .isEqualTo("done");
    }
  }

  @Test
  void listeningStreamCarriesListChangedAndNotificationsWithoutIds() throws IOException {
    String session = initialize();
    try (SseClient sse = listen(session, null)) {
      assertThat(sse.head().status()).isEqualTo(200);
      SseClient.Event priming = sse.next(5000);
      assertThat(priming.data()).isEmpty();
      server.addTool(Tool.builder("added").build(), (ctx, args) -> CallToolResult.text("x"));
      SseClient.Event changed = sse.next(5000);
      assertThat(json(changed).get("method").asString())
          .isEqualTo("notifications/tools/list_changed");
      assertThat(server.notify(session, "notifications/custom",
          McpJson.object().put("k", "v"))).isTrue();
      JsonNode custom = json(sse.next(5000));
      assertThat(custom.get("method").asString()).isEqualTo("notifications/custom");
      assertThat(custom.has("id")).isFalse();
    } finally {
      server.removeTool("added");
    }
  }

  @Test
  void inv32_notifyWithoutAListeningStreamReturnsFalse() throws IOException {
    String session = initialize();
    assertThat(server.notify(session, "notifications/custom", null)).isFalse();
    assertThat(server.notify("no-such-session", "notifications/custom", null)).isFalse();
  }

  @Test
  void inv31_closingAStaleListeningStreamNeverDetachesTheNewerOne() throws Exception {
    String session = initialize();
    SseClient first = listen(session, null);
    first.next(5000);
    try (SseClient second = listen(session, null)) {
      second.next(5000);
      // The newer stream replaces the older, which the server ends; its close changes nothing.
      assertThat(first.drain(3000)).isEmpty();
      assertThat(first.ended()).isTrue();
      first.close();
      Thread.sleep(200);
      assertThat(server.notify(session, "notifications/custom", null)).isTrue();
      assertThat(json(second.next(5000)).get("method").asString())
          .isEqualTo("notifications/custom");
    }
  }

  @Test
  void streamClosedForPollingIsResumedWithLastEventIdReplayingOnlyThatStream()
      throws IOException {
    String session = initialize();
    String primingId = closedForPolling(session, 8, "poll");
    // Another request's events must not leak into the resumed stream.
    try (SseClient other = SseClient.open(port, "POST", headers(session), call(9, "logs"))) {
      other.drain(5000);
    }
    assertResumedWith(session, primingId, "after the close", 8, "polled");
  }

  @Test
  void nonBlockingToolThatClosesItsStreamForPollingIsResumedLikeAnyOther() throws IOException {
    String session = initialize();
    String primingId = closedForPolling(session, 21, "pollInline");
    assertResumedWith(session, primingId, "inline after the close", 21, "polled inline");
    // McpHttpServer names its container threads keel-jetty-N: the call really ran inline.
    assertThat(pollInlineThread).startsWith("keel-jetty");
  }

  /** Calls a tool that closes its stream for polling; returns the priming event's id. */
  static String closedForPolling(String session, int id, String tool) throws IOException {
    try (SseClient sse = SseClient.open(port, "POST", headers(session), call(id, tool))) {
      List<SseClient.Event> beforeClose = sse.drain(5000);
      assertThat(sse.ended()).as("the server closed the stream for polling").isTrue();
      assertThat(beforeClose).hasSize(1);
      assertThat(beforeClose.get(0).data()).isEmpty();
      return beforeClose.get(0).id();
    }
  }

  /** Resumes after {@code primingId}: exactly the call's log, then its answer, then the end. */
  static void assertResumedWith(String session, String primingId, String log, int id,
      String text) throws IOException {
    try (SseClient resumed = listen(session, primingId)) {
      List<SseClient.Event> events = resumed.drain(5000);
      assertThat(resumed.ended()).isTrue();
      assertThat(events).hasSize(2);
      assertThat(json(events.get(0)).get("params").get("data").asString()).isEqualTo(log);
      JsonNode response = json(events.get(1));
      assertThat(response.get("id").asInt()).isEqualTo(id);
      assertThat(response.get("result").get("content").get(0).get("text").asString())
          .isEqualTo(text);
    }
  }

  @Test
  void cancelledNotificationInterruptsTheHandlerAndTheRequestGetsNoResponse() throws Exception {
    String session = initialize();
    try (SseClient sse = SseClient.open(port, "POST", headers(session), call(11, "block"))) {
      assertThat(blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
      RawHttp.Response cancel = RawHttp.exchange(port, "POST", "/mcp", headers(session),
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
              + "{\"requestId\":11,\"reason\":\"test\"}}");
      assertThat(cancel.status()).isEqualTo(202);
      assertThat(blockInterrupted.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(sse.head().status()).isEqualTo(200);
      assertThat(sse.drain(5000)).noneMatch(e -> e.data() != null && e.data().contains("\"id\":11"));
      assertThat(sse.ended()).isTrue();
      assertThat(blockFinished).isFalse();
    }
  }

  @Test
  void inv16_cancelFromAnotherSessionChangesNothing() throws Exception {
    String session = initialize();
    String other = initialize();
    try (SseClient sse = SseClient.open(port, "POST", headers(session), call(12, "block"))) {
      assertThat(blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
      RawHttp.Response cancel = RawHttp.exchange(port, "POST", "/mcp", headers(other),
          "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
              + "{\"requestId\":12}}");
      assertThat(cancel.status()).isEqualTo(202);
      assertThat(cancel.body()).isEmpty();
      assertThat(blockInterrupted.await(500, TimeUnit.MILLISECONDS)).isFalse();
      RawHttp.exchange(port, "DELETE", "/mcp", headers(session), null);
      assertThat(blockInterrupted.await(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void inv12_deleteCancelsInFlightWorkAndEndsTheListeningStream() throws Exception {
    String session = initialize();
    try (SseClient listening = listen(session, null);
        SseClient call = SseClient.open(port, "POST", headers(session), call(13, "block"))) {
      listening.next(5000);
      assertThat(blockStarted.await(10, TimeUnit.SECONDS)).isTrue();
      RawHttp.Response delete = RawHttp.exchange(port, "DELETE", "/mcp", headers(session), null);
      assertThat(delete.status()).isEqualTo(204);
      assertThat(blockInterrupted.await(10, TimeUnit.SECONDS)).isTrue();
      listening.drain(5000);
      assertThat(listening.ended()).isTrue();
      assertThat(call.drain(5000)).noneMatch(e -> e.data() != null && !e.data().isEmpty());
      assertThat(server.notify(session, "notifications/custom", null)).isFalse();
    }
  }
}
