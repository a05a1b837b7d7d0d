package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.ElicitRequest;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Tools registered with {@code ToolOptions.withNonBlocking()} over a real Jetty: they run on the
 * container thread that received the call (no hand-off to a handler thread), everything else a
 * call does still works (arguments, progress on a stream, the answer), cancellation trips their
 * token but never interrupts the container's thread, and in a legacy session they cannot wait
 * for the client.
 */
class NonBlockingToolOverHttpTest {

  /** Where each tool ran, by the key its caller passed. */
  static final Map<String, String> threads = new ConcurrentHashMap<>();
  /** What the spinning tool saw when its token tripped: was its thread interrupted? */
  static final Map<String, Boolean> interruptedWhenCancelled = new ConcurrentHashMap<>();
  static final CountDownLatch spinning = new CountDownLatch(1);

  /** Holds the wrongly marked tool's calls until the test lets them go. */
  static final CountDownLatch release = new CountDownLatch(1);
  static final java.util.concurrent.atomic.AtomicInteger heldOnContainer =
      new java.util.concurrent.atomic.AtomicInteger();
  static final java.util.concurrent.atomic.AtomicInteger heldElsewhere =
      new java.util.concurrent.atomic.AtomicInteger();

  static McpServer server;
  static McpHttpServer http;
  static Peer peer;

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("quick").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              threads.put(args.get("key").asString(), Thread.currentThread().getName());
              return CallToolResult.text("quick " + args.get("key").asString());
            })
        .tool(Tool.builder("ordinary").build(), (ctx, args) -> {
          threads.put(args.get("key").asString(), Thread.currentThread().getName());
          return CallToolResult.text("ordinary");
        })
        .tool(Tool.builder("counting").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              for (int i = 1; i <= 3; i++) {
                ctx.progress(i, 3.0, "step " + i);
              }
              return CallToolResult.text("counted");
            })
        .tool(Tool.builder("spin").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              // Polls its token, as a non-blocking tool must; a test stand-in for a long
              // computation, bounded so a broken cancel cannot hang the build.
              spinning.countDown();
              long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
              while (!ctx.cancellation().isCancelled() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
              }
              interruptedWhenCancelled.put("spin", Thread.currentThread().isInterrupted());
              return CallToolResult.text(ctx.cancellation().isCancelled() ? "cancelled" : "ran");
            })
        .tool(Tool.builder("overrun").build(), ToolOptions.defaults()
                .withTimeout(Duration.ofMillis(50)).withNonBlocking(),
            (ctx, args) -> {
              long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(150);
              while (System.nanoTime() < until) {
                Thread.onSpinWait();
              }
              return CallToolResult.text("late");
            })
        .tool(Tool.builder("mislabelled").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              // Marked non-blocking, yet it waits: the mistake the inline bound contains.
              boolean container = Thread.currentThread().getName().startsWith("keel-jetty");
              (container ? heldOnContainer : heldElsewhere).incrementAndGet();
              release.await(20, TimeUnit.SECONDS);
              return CallToolResult.text("released");
            })
        .tool(Tool.builder("asks").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              ctx.elicit(ElicitRequest.form("Name?", McpJson.object().put("type", "object")));
              return CallToolResult.text("asked");
            })
        .build();
    // the servlet path, whose inline bound one test here checks; the selector lane trades that
    // bound away (McpHttpServer.Builder.selectorLane) and is tested in SelectorLaneTest
    http = McpHttpServer.builder(server).port(0).selectorLane(false).start();
    peer = new Peer(http.port());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  static String keyed(String key) {
    return "{\"key\":\"" + key + "\"}";
  }

  @Test
  void nonBlockingToolRunsOnTheContainerThreadAndOthersAreHandedOff() throws IOException {
    String session = peer.initialize(null);
    RawHttp.Response quick = peer.post(null, session, Peer.call(2, "quick", keyed("a")));
    RawHttp.Response ordinary = peer.post(null, session, Peer.call(3, "ordinary", keyed("b")));

    assertThat(quick.status()).isEqualTo(200);
    assertThat(Peer.text(Peer.json(quick.body()))).isEqualTo("quick a");
    assertThat(Peer.text(Peer.json(ordinary.body()))).isEqualTo("ordinary");
    // McpHttpServer names its container threads keel-jetty-N; handlers get threads of their own
    // (virtual ones, unnamed, on 21+; the keel-http pool on 17).
    assertThat(threads.get("a")).startsWith("keel-jetty");
    assertThat(threads.get("b")).doesNotStartWith("keel-jetty");
  }

  @Test
  void nonBlockingToolRunsInlineInTheStatelessEraToo() throws IOException {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"quick\",\"arguments\":" + keyed("m") + ",\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    RawHttp.Response r = peer.post(null, null, body, "MCP-Protocol-Version", "2026-07-28",
        "Mcp-Method", "tools/call", "Mcp-Name", "quick");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick m");
    assertThat(threads.get("m")).startsWith("keel-jetty");
  }

  @Test
  void progressOfANonBlockingToolStillStreamsBeforeItsAnswer() throws IOException {
    String session = peer.initialize(null);
    String call = Peer.request(4, "tools/call",
        "{\"name\":\"counting\",\"arguments\":{},\"_meta\":{\"progressToken\":\"p\"}}");
    try (SseClient sse = peer.postStream(null, session, call)) {
      assertThat(sse.head().header("content-type")).startsWith("text/event-stream");
      for (int i = 1; i <= 3; i++) {
        JsonNode progress = Peer.nextMessage(sse, 5000);
        assertThat(progress.get("method").asString()).isEqualTo("notifications/progress");
        assertThat(progress.get("params").get("progress").asInt()).isEqualTo(i);
      }
      JsonNode answer = Peer.nextMessage(sse, 5000);
      assertThat(answer.get("id").asInt()).isEqualTo(4);
      assertThat(Peer.text(answer)).isEqualTo("counted");
    }
  }

  @Test
  void cancellationTripsTheTokenButNeverInterruptsTheContainerThread() throws Exception {
    String session = peer.initialize(null);
    try (SseClient call = peer.postStream(null, session, Peer.call(5, "spin", "{}"))) {
      assertThat(spinning.await(5, TimeUnit.SECONDS)).isTrue();
      RawHttp.Response cancelled = peer.post(null, session, Peer.cancel(5));
      assertThat(cancelled.status()).isEqualTo(202);
      Awaitility.await().atMost(Duration.ofSeconds(5))
          .until(() -> interruptedWhenCancelled.containsKey("spin"));
      // The token tripped (the tool saw it long before its 10 s bound) and the thread it ran
      // on, Jetty's, was left alone.
      assertThat(interruptedWhenCancelled.get("spin")).isFalse();
    }
    // The container threads are still fit for work: later calls are served.
    for (int i = 0; i < 20; i++) {
      RawHttp.Response r = peer.post(null, session, Peer.call(100 + i, "quick", keyed("after")));
      assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick after");
    }
  }

  @Test
  void aToolWronglyMarkedNonBlockingHoldsAtMostTheInlineLimitOfContainerThreads()
      throws Exception {
    int limit = dev.keel.mcp.http.internal.HttpTransport.inlineLimit();
    int calls = limit + 3;
    String session = peer.initialize(null);
    java.util.List<SseClient> streams = new java.util.ArrayList<>();
    try {
      for (int i = 0; i < calls; i++) {
        streams.add(peer.postStream(null, session, Peer.call(300 + i, "mislabelled", "{}")));
      }
      Awaitility.await().atMost(Duration.ofSeconds(10))
          .until(() -> heldOnContainer.get() + heldElsewhere.get() == calls);
      assertThat(heldOnContainer.get()).isEqualTo(limit);
      assertThat(heldElsewhere.get()).isEqualTo(3);
      // With the inline slots taken and the tool stuck, the server still answers.
      RawHttp.Response other = peer.post(null, session, Peer.call(399, "ordinary",
          keyed("while-held")));
      assertThat(Peer.text(Peer.json(other.body()))).isEqualTo("ordinary");
    } finally {
      release.countDown();
      for (SseClient stream : streams) {
        stream.close();
      }
    }
  }

  @Test
  void aNonBlockingCallPastItsTimeoutIsAnsweredAsTimedOut() throws IOException {
    String session = peer.initialize(null);
    RawHttp.Response r = peer.post(null, session, Peer.call(9, "overrun", "{}"));
    JsonNode result = Peer.json(r.body()).get("result");
    // Checked when it returns (nothing may interrupt its thread), answered all the same.
    assertThat(result.get("isError").asBoolean()).as(r.body()).isTrue();
    assertThat(Peer.text(Peer.json(r.body()))).contains("timed out after 50 ms");
  }

  @Test
  void inALegacySessionANonBlockingToolCannotWaitForTheClient() throws IOException {
    String session = peer.initialize(null, Peer.LATEST, Peer.ELICITATION);
    long started = System.nanoTime();
    RawHttp.Response r = peer.post(null, session, Peer.call(6, "asks", "{}"));
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    assertThat(r.status()).isEqualTo(200);
    JsonNode answer = Peer.json(r.body());
    // Failed at once, instead of holding a container thread until the client answers (the
    // server would have waited its 60 s client-request timeout).
    assertThat(answer.get("result").get("isError").asBoolean()).as(r.body()).isTrue();
    assertThat(millis).isLessThan(5000);
  }

  @Test
  void inTheStatelessEraItsQuestionsAreAnsweredAsInputRequiredWithoutWaiting()
      throws IOException {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"asks\",\"arguments\":{},\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}}}}}";
    RawHttp.Response r = peer.post(null, null, body, "MCP-Protocol-Version", "2026-07-28",
        "Mcp-Method", "tools/call", "Mcp-Name", "asks");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    JsonNode result = Peer.json(r.body()).get("result");
    assertThat(result.get("resultType").asString()).as(r.body()).isEqualTo("input_required");
  }
}
