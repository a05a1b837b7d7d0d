package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.ToolOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code McpHttpServer.Builder.selectorLane(true)} over a real Jetty: a non-blocking call whose
 * request came whole is served on Jetty's selector without entering the servlet; everything
 * else (refusals, a body still arriving, a blocking tool, progress before the answer) is
 * answered by the servlet exactly as without the lane. Each case runs against a server with the
 * lane and one without, and their answers are compared.
 */
class SelectorLaneTest {

  /** Whether the servlet was on the stack of each call, by the key its caller passed. */
  static final Map<String, Boolean> viaServlet = new ConcurrentHashMap<>();
  /** Whether the lane was on the stack of each call. */
  static final Map<String, Boolean> viaLane = new ConcurrentHashMap<>();

  static McpServer server;
  static McpHttpServer lane;
  static McpHttpServer plain;
  static McpServer keyed;
  static McpHttpServer keyedLane;

  static boolean onStack(String className) {
    return StackWalker.getInstance().walk(frames -> frames.anyMatch(
        f -> f.getClassName().equals(className)));
  }

  /**
   * Whether the lane itself serves the request on this thread. Not any frame of its class: a
   * request it hands to the servlet runs on a pool thread from a lambda of the lane's.
   */
  static boolean onLane() {
    return StackWalker.getInstance().walk(frames -> frames.anyMatch(
        f -> f.getClassName().equals("dev.keel.mcp.http.internal.SelectorLane")
            && f.getMethodName().equals("serve")));
  }

  static void record(JsonNode args) {
    String key = args.get("key").asString();
    viaServlet.put(key, onStack("dev.keel.mcp.http.McpServlet"));
    viaLane.put(key, onLane());
  }

  /** Counted down when the waiting tool starts, and when its sleep is interrupted. */
  static final java.util.concurrent.CountDownLatch waiting =
      new java.util.concurrent.CountDownLatch(1);
  static final java.util.concurrent.CountDownLatch waitingCancelled =
      new java.util.concurrent.CountDownLatch(1);

  /** Where each initialize ran, by its request id: was the lane on its stack? */
  static final Map<String, Boolean> initializedOnLane = new ConcurrentHashMap<>();

  static McpServer build() {
    return McpServer.builder()
        .observer(request -> {
          if (request.method().equals("initialize")) {
            initializedOnLane.put(String.valueOf(request.id()), onLane());
          }
          return dev.keel.mcp.core.RequestObservation.NONE;
        })
        .tool(Tool.builder("quick").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              record(args);
              return CallToolResult.text("quick " + args.get("key").asString());
            })
        .tool(Tool.builder("ordinary").build(), (ctx, args) -> {
          record(args);
          return CallToolResult.text("ordinary " + args.get("key").asString());
        })
        .tool(Tool.builder("waiting").build(), (ctx, args) -> {
          waiting.countDown();
          try {
            Thread.sleep(30_000);
            return CallToolResult.text("slept");
          } catch (InterruptedException e) {
            waitingCancelled.countDown();
            Thread.currentThread().interrupt();
            return CallToolResult.text("interrupted");
          }
        })
        .tool(Tool.builder("counting").build(), ToolOptions.defaults().withNonBlocking(),
            (ctx, args) -> {
              record(args);
              for (int i = 1; i <= 3; i++) {
                ctx.progress(i, 3.0, "step " + i);
              }
              return CallToolResult.text("counted");
            })
        .build();
  }

  @BeforeAll
  static void start() {
    server = build();
    lane = McpHttpServer.builder(server).port(0).selectorLane(true).start();
    plain = McpHttpServer.builder(server).port(0).selectorLane(false).start();
    keyed = build();
    keyedLane = McpHttpServer.builder(keyed).port(0).selectorLane(true)
        .servlet(s -> s.authenticator(Authenticator.bearerTokens(Map.of("s3cret", "alice"))))
        .start();
  }

  @AfterAll
  static void stop() {
    lane.close();
    plain.close();
    keyedLane.close();
    server.close();
    keyed.close();
  }

  static String keyArgs(String key) {
    return "{\"key\":\"" + key + "\"}";
  }

  static String modernCall(int id, String tool, String key) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{"
        + "\"name\":\"" + tool + "\",\"arguments\":" + keyArgs(key) + ",\"_meta\":{"
        + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  }

  /** The head of a POST to the endpoint declaring {@code length} body bytes. */
  static String head(int port, long length, Map<String, String> headers) {
    StringBuilder head = new StringBuilder("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + port
        + "\r\nContent-Length: " + length + "\r\n");
    headers.forEach((k, v) -> {
      if (v != null) {
        head.append(k).append(": ").append(v).append("\r\n");
      }
    });
    return head.append("\r\n").toString();
  }

  /** POSTs with its head and body in one write, so the body arrives with the head. */
  static RawHttp.Response postWhole(int port, Map<String, String> headers, String body)
      throws IOException {
    Map<String, String> closing = new java.util.LinkedHashMap<>(headers);
    closing.put("Connection", "close");
    try (RawHttp http = new RawHttp(port)) {
      http.send(head(port, body.getBytes(StandardCharsets.UTF_8).length, closing) + body);
      return http.readResponse(Long.MAX_VALUE);
    }
  }

  @Test
  void aNonBlockingCallIsServedOnTheSelectorWithoutTheServlet() throws IOException {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    RawHttp.Response r = postWhole(lane.port(), Peer.headers(null, session),
        Peer.call(2, "quick", keyArgs("lane-legacy")));

    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.header("content-type")).isEqualTo("application/json");
    assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick lane-legacy");
    assertThat(viaLane.get("lane-legacy")).isTrue();
    assertThat(viaServlet.get("lane-legacy")).isFalse();
  }

  @Test
  void withoutTheLaneTheSameCallGoesThroughTheServlet() throws IOException {
    Peer peer = new Peer(plain.port());
    String session = peer.initialize(null);
    RawHttp.Response r = postWhole(plain.port(), Peer.headers(null, session),
        Peer.call(2, "quick", keyArgs("plain-legacy")));

    assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick plain-legacy");
    assertThat(viaServlet.get("plain-legacy")).isTrue();
    assertThat(viaLane.get("plain-legacy")).isFalse();
  }

  @Test
  void aStatelessCallIsServedOnTheSelectorToo() throws IOException {
    RawHttp.Response r = postWhole(lane.port(), Peer.headers(null, null,
        "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "quick"),
        modernCall(7, "quick", "lane-modern"));

    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick lane-modern");
    assertThat(viaServlet.get("lane-modern")).isFalse();
  }

  @Test
  void aStatelessHeaderMismatchIsRefusedAsTheServletRefusesIt() throws IOException {
    String body = modernCall(8, "quick", "never-runs");
    Map<String, String> headers = Peer.headers(null, null, "MCP-Protocol-Version",
        "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "ordinary");
    RawHttp.Response viaLaneServer = postWhole(lane.port(), headers, body);
    RawHttp.Response viaPlainServer = postWhole(plain.port(), headers, body);

    assertThat(viaLaneServer.status()).isEqualTo(400);
    assertThat(Peer.errorCode(viaLaneServer)).isEqualTo(-32020);
    assertThat(viaLaneServer.body()).isEqualTo(viaPlainServer.body());
    assertThat(viaLane).doesNotContainKey("never-runs");
  }

  @Test
  void aBlockingToolIsHandedToTheServletResolvedOnce() throws IOException {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    RawHttp.Response r = postWhole(lane.port(), Peer.headers(null, session),
        Peer.call(3, "ordinary", keyArgs("handed-off")));

    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("ordinary handed-off");
    // it ran on a handler thread, started by the servlet's transport, not on the selector
    assertThat(viaLane.get("handed-off")).isFalse();
  }

  @Test
  void progressSentBeforeTheAnswerStillArrivesFirstOnAnEventStream() throws IOException {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    String call = Peer.request(4, "tools/call", "{\"name\":\"counting\",\"arguments\":"
        + keyArgs("counting") + ",\"_meta\":{\"progressToken\":\"p\"}}");
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
  void refusalsAreTheServletsOwn() throws IOException {
    Peer lanePeer = new Peer(lane.port());
    Peer plainPeer = new Peer(plain.port());
    String laneSession = lanePeer.initialize(null);
    String call = Peer.call(5, "quick", keyArgs("refused"));
    String[][] cases = {
        {"Origin", "https://evil.example"},
        {"Content-Type", "text/plain"},
        {"Accept", "text/html"},
        {"MCP-Protocol-Version", "1999-01-01"},
        {"Mcp-Session-Id", "no-such-session"},
        {"Mcp-Session-Id", null},
    };
    for (String[] c : cases) {
      RawHttp.Response viaLaneServer = postWhole(lane.port(),
          Peer.headers(null, laneSession, c[0], c[1]), call);
      RawHttp.Response viaPlainServer = postWhole(plain.port(),
          Peer.headers(null, "no-such-session".equals(c[1]) ? c[1] : plainPeer.initialize(null),
              c[0], c[1]), call);
      assertThat(viaLaneServer.status()).as("%s: %s", c[0], c[1])
          .isEqualTo(viaPlainServer.status()).isBetween(400, 499);
      assertThat(viaLaneServer.body()).as("%s: %s", c[0], c[1])
          .isEqualTo(viaPlainServer.body());
    }
    RawHttp.Response badJson = postWhole(lane.port(), Peer.headers(null, laneSession),
        "{\"jsonrpc\":");
    assertThat(badJson.status()).isEqualTo(400);
    assertThat(Peer.errorCode(badJson)).isEqualTo(-32700);
    assertThat(viaLane).doesNotContainKey("refused");
  }

  @Test
  void aBodyStillArrivingIsReadByTheServlet() throws Exception {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    byte[] body = Peer.call(9, "quick", keyArgs("split")).getBytes(StandardCharsets.UTF_8);
    Map<String, String> headers = new java.util.LinkedHashMap<>(Peer.headers(null, session));
    headers.put("Connection", "close");
    try (RawHttp http = new RawHttp(lane.port())) {
      http.send(head(lane.port(), body.length, headers));
      Thread.sleep(200);
      http.send(new String(body, 0, 10, StandardCharsets.UTF_8));
      Thread.sleep(200);
      http.send(new String(body, 10, body.length - 10, StandardCharsets.UTF_8));
      RawHttp.Response r = http.readResponse(Long.MAX_VALUE);
      assertThat(r.status()).as(r.body()).isEqualTo(200);
      assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick split");
    }
    // read by the servlet's listener as it came, then run there, not on the selector
    assertThat(viaLane.get("split")).isFalse();
  }

  @Test
  void apiKeysAreCheckedOnTheLaneAndARefusalIsTheServlets() throws IOException {
    Peer peer = new Peer(keyedLane.port());
    String session = peer.initialize("s3cret");
    RawHttp.Response served = postWhole(keyedLane.port(), Peer.headers("s3cret", session),
        Peer.call(10, "quick", keyArgs("keyed")));
    assertThat(Peer.text(Peer.json(served.body()))).isEqualTo("quick keyed");
    assertThat(viaServlet.get("keyed")).isFalse();

    RawHttp.Response refused = postWhole(keyedLane.port(), Peer.headers("wrong", session),
        Peer.call(11, "quick", keyArgs("wrong-key")));
    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.header("www-authenticate")).isEqualTo("Bearer");
    assertThat(viaLane).doesNotContainKey("wrong-key");

  }

  @Test
  void aConfigurationThatMayBlockKeepsEveryCallOnTheServletPath() throws IOException {
    java.util.List<java.util.function.Consumer<McpServlet.Builder>> blocking = java.util.List.of(
        s -> s.authenticator(request -> java.util.Optional.of(
            dev.keel.mcp.server.Principal.local())),
        s -> s.rateLimiter(RateLimiter.perClientAddress(1_000, 1_000)),
        s -> s.fingerprintResolver((request, principal) -> "tenant"));
    int n = 0;
    for (java.util.function.Consumer<McpServlet.Builder> configure : blocking) {
      McpServer own = build();
      McpHttpServer http = McpHttpServer.builder(own).port(0).selectorLane(true)
          .servlet(configure).start();
      try {
        String key = "kept-" + n++;
        String session = new Peer(http.port()).initialize(null);
        RawHttp.Response r = postWhole(http.port(), Peer.headers(null, session),
            Peer.call(13, "quick", keyArgs(key)));
        assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("quick " + key);
        assertThat(viaServlet.get(key)).as(key).isTrue();
      } finally {
        http.close();
        own.close();
      }
    }
  }

  @Test
  void aNewSessionStartsOnTheLaneAndARenewalGoesToTheServlet() throws IOException {
    String first = "{\"jsonrpc\":\"2.0\",\"id\":\"lane-init\",\"method\":\"initialize\","
        + "\"params\":{\"protocolVersion\":\"" + Peer.LATEST + "\",\"capabilities\":{},"
        + "\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}";
    RawHttp.Response created = postWhole(lane.port(), Peer.headers(null, null), first);
    assertThat(created.status()).as(created.body()).isEqualTo(200);
    String session = created.header("mcp-session-id");
    assertThat(session).isNotBlank();
    assertThat(initializedOnLane).containsEntry("\"lane-init\"", true);

    RawHttp.Response ack = postWhole(lane.port(), Peer.headers(null, session),
        Peer.notification("notifications/initialized", null));
    assertThat(ack.status()).isEqualTo(202);
    RawHttp.Response called = postWhole(lane.port(), Peer.headers(null, session),
        Peer.call(14, "quick", keyArgs("after-lane-init")));
    assertThat(Peer.text(Peer.json(called.body()))).isEqualTo("quick after-lane-init");

    // the owner renewing its session: the servlet's rules, on a pool thread
    RawHttp.Response renewed = postWhole(lane.port(), Peer.headers(null, session),
        first.replace("lane-init", "renewal"));
    assertThat(renewed.status()).as(renewed.body()).isEqualTo(200);
    assertThat(initializedOnLane).containsEntry("\"renewal\"", false);
    // a session begun on the lane ends as any other
    assertThat(new Peer(lane.port()).delete(null, session).status()).isEqualTo(204);
    assertThat(new Peer(lane.port()).ping(null, session)).isEqualTo(404);
  }

  /** Bytes allocated so far by the threads alive now (Jetty's selectors and pool among them). */
  static long allocatedSoFar() throws Exception {
    // through reflection: the test sources compile against this module, which does not read
    // jdk.management; they run on the class path, where HotSpot's bean is there to call
    Object threads = java.lang.management.ManagementFactory.getThreadMXBean();
    long[] ids = java.lang.management.ManagementFactory.getThreadMXBean().getAllThreadIds();
    long[] bytes = (long[]) Class.forName("com.sun.management.ThreadMXBean")
        .getMethod("getThreadAllocatedBytes", long[].class).invoke(threads, (Object) ids);
    long total = 0;
    for (long b : bytes) {
      total += Math.max(0, b);
    }
    return total;
  }

  @Test
  void aHeadThatDeclaresTheLimitCostsWhatArrivedNotTheLimit() throws Exception {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    int connections = 32;
    int limit = 4 * 1024 * 1024;
    java.util.List<RawHttp> open = new java.util.ArrayList<>();
    long before = allocatedSoFar();
    try {
      for (int i = 0; i < connections; i++) {
        RawHttp http = new RawHttp(lane.port());
        open.add(http);
        http.send(head(lane.port(), limit, Peer.headers(null, session)) + "{\"jsonrpc\"");
      }
      Thread.sleep(500);
      long allocated = allocatedSoFar() - before;
      // each head declaring the limit once cost a buffer of the limit: 128 MiB here
      assertThat(allocated).as("bytes allocated serving %d heads", connections)
          .isLessThan((long) connections * limit / 4);
    } finally {
      for (RawHttp http : open) {
        http.close();
      }
    }
  }

  /** Records, under the session's id, whether the lane's DELETE was on the stack that ended it. */
  static final Map<String, Boolean> endedOnLane = new ConcurrentHashMap<>();

  static void watchEnd(McpServer on, String session) {
    on.engine().session(session, dev.keel.mcp.server.Principal.local()).orElseThrow()
        .onClose(() -> endedOnLane.put(session,
            StackWalker.getInstance().walk(frames -> frames.anyMatch(
                f -> f.getClassName().equals("dev.keel.mcp.http.internal.SelectorLane")
                    && f.getMethodName().equals("end")))));
  }

  @Test
  void aQuietSessionEndsOnTheLaneAnsweredAsTheServletAnswers() throws IOException {
    String onLane = new Peer(lane.port()).initialize(null);
    String onPlain = new Peer(plain.port()).initialize(null);
    watchEnd(server, onLane);
    watchEnd(server, onPlain);

    RawHttp.Response viaLaneServer = new Peer(lane.port()).delete(null, onLane);
    RawHttp.Response viaPlainServer = new Peer(plain.port()).delete(null, onPlain);

    assertThat(viaLaneServer.status()).isEqualTo(204).isEqualTo(viaPlainServer.status());
    assertThat(viaLaneServer.headers().keySet()).containsExactlyInAnyOrderElementsOf(
        viaPlainServer.headers().keySet());
    assertThat(viaLaneServer.body()).isEmpty();
    assertThat(endedOnLane).containsEntry(onLane, true).containsEntry(onPlain, false);
    assertThat(server.engine().session(onLane, dev.keel.mcp.server.Principal.local())).isEmpty();
    assertThat(new Peer(lane.port()).ping(null, onLane)).isEqualTo(404);
    // ended once: a second DELETE finds no session, as the servlet answers it
    assertThat(new Peer(lane.port()).delete(null, onLane).status()).isEqualTo(404);
  }

  @Test
  void aSessionWithAListeningStreamEndsThroughTheServletWhichClosesTheStream()
      throws IOException {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    watchEnd(server, session);
    try (SseClient listening = peer.get(null, session)) {
      assertThat(listening.head().status()).isEqualTo(200);
      Peer.notifyWhenAttached(server, session, "notifications/tools/list_changed", null);
      assertThat(peer.delete(null, session).status()).isEqualTo(204);
      assertThat(listening.awaitEnd(5000)).as("the listening stream ends with its session")
          .isTrue();
    }
    assertThat(endedOnLane).containsEntry(session, false);
  }

  @Test
  void aSessionWithARunningCallEndsThroughTheServletWhichCancelsTheCall() throws Exception {
    Peer peer = new Peer(lane.port());
    String session = peer.initialize(null);
    watchEnd(server, session);
    try (SseClient running = peer.postStream(null, session,
        Peer.call(21, "waiting", keyArgs("waiting")))) {
      assertThat(waiting.await(5, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      assertThat(peer.delete(null, session).status()).isEqualTo(204);
      assertThat(waitingCancelled.await(5, java.util.concurrent.TimeUnit.SECONDS))
          .as("the running call was cancelled by the session's end").isTrue();
    }
    assertThat(endedOnLane).containsEntry(session, false);
  }

  @Test
  void aDeleteTheLaneCannotServeIsRefusedAsTheServletRefusesIt() throws IOException {
    Peer lanePeer = new Peer(lane.port());
    Peer plainPeer = new Peer(plain.port());
    String[][] cases = {
        {"Mcp-Session-Id", Peer.UNKNOWN_SESSION},
        {"Mcp-Session-Id", "bad id"},
        {"Mcp-Session-Id", null},
        {"MCP-Protocol-Version", "1999-01-01"},
        {"Origin", "https://evil.example"},
    };
    for (String[] c : cases) {
      String laneSession = lanePeer.initialize(null);
      RawHttp.Response viaLaneServer = lanePeer.delete(null, laneSession, c[0], c[1]);
      RawHttp.Response viaPlainServer = plainPeer.delete(null, plainPeer.initialize(null),
          c[0], c[1]);
      assertThat(viaLaneServer.status()).as("%s: %s", c[0], c[1])
          .isEqualTo(viaPlainServer.status()).isBetween(400, 499);
      assertThat(viaLaneServer.body()).as("%s: %s", c[0], c[1])
          .isEqualTo(viaPlainServer.body());
      // the session the refused DELETE named (or would have) lives on
      assertThat(lanePeer.ping(null, laneSession)).as("%s: %s", c[0], c[1]).isEqualTo(200);
    }
    // another principal's session: unknown to it, and left alone
    String alices = new Peer(keyedLane.port()).initialize("s3cret");
    RawHttp.Response foreign = new Peer(keyedLane.port()).delete("wrong", alices);
    assertThat(foreign.status()).isEqualTo(401);
    assertThat(new Peer(keyedLane.port()).ping("s3cret", alices)).isEqualTo(200);
    assertThat(new Peer(keyedLane.port()).delete("s3cret", alices).status()).isEqualTo(204);
  }

  @Test
  void aDeleteWithABodyEndsItsConnectionAsTheServletDoes() throws IOException {
    String session = new Peer(lane.port()).initialize(null);
    watchEnd(server, session);
    RawHttp.Response r = RawHttp.exchange(lane.port(), "DELETE", "/mcp",
        Peer.headers(null, session, "Connection", null), "{}");
    assertThat(r.status()).isEqualTo(204);
    assertThat(r.header("connection")).isEqualTo("close");
    assertThat(endedOnLane).containsEntry(session, false);
  }

}
