package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Issue 21, resource bounds under attack, on a real Jetty over real sockets: heads sent a byte
 * at a time (slow-loris), bodies sent a byte at a time, an SSE listener and POST clients that
 * never read, connections that send nothing (half-open), and more connections than the server
 * takes. Each is ended by its own bound, no earlier than the bound and no later than the bound
 * plus {@link #SLACK_MS}; while they attack, a good client's {@code tools/call} and
 * {@code /health} are answered within {@link #PROMPT_MS}; afterwards the server holds nothing
 * for them (connections, streams, requests, buffered bytes).
 *
 * <p>The bounds are a second here so the class runs in seconds; the idle timeout stays at
 * {@link #IDLE}, far beyond them, so that it cannot be what ends an attacker. Each test prints
 * what it measured (docs/reliability.md, "Resource bounds").
 */
class SlowClientsTest {

  static final Duration HEADER = Duration.ofSeconds(1);
  static final Duration BODY = Duration.ofSeconds(1);
  static final Duration WRITE = Duration.ofSeconds(1);
  static final Duration IDLE = Duration.ofSeconds(20);
  /** How late a bound may act: its timer's tick (a quarter of it) and a loaded machine. */
  static final long SLACK_MS = 1500;
  /** How long a good client's call may take beside the attackers. */
  static final long PROMPT_MS = 1000;
  /** How long an attacker waits between the bytes it trickles. */
  static final long TRICKLE_MS = 100;
  /**
   * When the last bytes that a client will not read were handed to the transport: a large
   * answer once made, or each message of a streamed one.
   */
  static final AtomicLong answering = new AtomicLong();

  McpServer server;
  McpHttpServer http;
  Peer peer;
  final List<Socket> sockets = new ArrayList<>();
  final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "slow-client");
    t.setDaemon(true);
    return t;
  });

  void start(Consumer<McpHttpServer.Builder> options) {
    server = McpServer.builder()
        .tool(Tool.builder("echo").build(),
            (ctx, args) -> CallToolResult.text(args.path("text").asString("")))
        .tool(Tool.builder("big").build(),
            (ctx, args) -> {
              CallToolResult big = CallToolResult.text("x".repeat(args.path("mib").asInt(1) << 20));
              answering.accumulateAndGet(System.nanoTime(), Math::max);
              return big;
            })
        .tool(Tool.builder("flood").build(), (ctx, args) -> {
          String chunk = "y".repeat(256 << 10);
          for (int i = 0; i < 32 && !ctx.cancellation().isCancelled(); i++) {
            // the message that finds the socket's buffers full is the last one marked
            answering.accumulateAndGet(System.nanoTime(), Math::max);
            ctx.log(LoggingLevel.INFO, chunk);
          }
          return CallToolResult.text("flooded");
        })
        .build();
    McpHttpServer.Builder b = McpHttpServer.builder(server).port(0).idleTimeout(IDLE)
        .headerTimeout(HEADER).bodyTimeout(BODY).writeTimeout(WRITE);
    options.accept(b);
    http = b.start();
    peer = new Peer(http.port());
  }

  @AfterEach
  void stop() throws IOException {
    threads.shutdownNow();
    for (Socket s : sockets) {
      s.close();
    }
    if (http != null) {
      http.close();
      server.close();
    }
  }

  @Test
  void headersSentAByteAtATimeAreClosedAtTheHeaderTimeout() throws Exception {
    start(b -> { });
    String session = peer.initialize(null);
    List<Attack> attacks = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      // A head that would be well-formed, were it ever finished.
      attacks.add(attack("GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + http.port()
          + "\r\nX-Slow: " + "a".repeat(4000), 1, false));
    }
    long prompt = servedDuringTheAttack(session);
    LongSummaryStatistics closed = closedAfter(attacks, HEADER);
    for (Attack a : attacks) {
      assertThat(a.received()).as("what a slow head got").isEmpty();
    }
    report("heads a byte at a time", closed, HEADER, prompt);
    assertBackToIdle(1);
  }

  @Test
  void bodiesSentAByteAtATimeAreAnswered408AtTheBodyTimeout() throws Exception {
    start(b -> { });
    String session = peer.initialize(null);
    List<Attack> attacks = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      attacks.add(attack(postHead(session, 100_000) + "{", 0, true));
    }
    long prompt = servedDuringTheAttack(session);
    LongSummaryStatistics answered = closedAfter(attacks, BODY);
    for (Attack a : attacks) {
      assertThat(a.received()).as("what a slow body got").startsWith("HTTP/1.1 408");
    }
    report("bodies a byte at a time", answered, BODY, prompt);
    assertBackToIdle(1);
  }

  @Test
  void aBodyTimeoutSetOnTheServletWinsOverTheServers() throws Exception {
    start(b -> b.bodyTimeout(Duration.ofMinutes(10)).servlet(s -> s.bodyTimeout(BODY)));
    String session = peer.initialize(null);
    Attack a = attack(postHead(session, 100_000) + "{", 0, true);
    LongSummaryStatistics answered = closedAfter(List.of(a), BODY);
    assertThat(a.received()).startsWith("HTTP/1.1 408");
    report("a body, the servlet's timeout", answered, BODY, 0);
    assertBackToIdle(1);
  }

  @Test
  void anSseListenerThatNeverReadsIsDisconnectedAtTheWriteTimeout() throws Exception {
    start(b -> { });
    String good = peer.initialize(null);
    String bad = peer.initialize(null);
    SseClient listening = peer.get(null, good);
    assertThat(listening.head().status()).isEqualTo(200);
    Socket s = unreadSocket();
    send(s, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + http.port()
        + "\r\nAccept: text/event-stream\r\nMcp-Session-Id: " + bad + "\r\n\r\n");
    Peer.notifyWhenAttached(server, bad, "notifications/message", McpJson.object());
    Peer.notifyWhenAttached(server, good, "notifications/message", McpJson.object());
    assertThat(Peer.nextMessage(listening, 5000).path("method").asString())
        .isEqualTo("notifications/message");

    // Notifications far larger than the socket buffers, until one cannot be written.
    ObjectNode large = McpJson.object().put("level", "info").put("data", "x".repeat(256 << 10));
    AtomicLong callStarted = new AtomicLong();
    Future<Long> blockedCall = threads.submit(() -> {
      while (true) {
        long start = System.nanoTime();
        callStarted.set(start);
        if (!server.notify(bad, "notifications/message", large)) {
          return System.nanoTime() - start;
        }
      }
    });
    // The sender is stuck on the listener that does not read: the others go on.
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
        .until(() -> System.nanoTime() - callStarted.get() > 200_000_000L);
    long prompt = servedDuringTheAttack(good);
    long start = System.nanoTime();
    assertThat(server.notify(good, "notifications/message", McpJson.object().put("n", 2)))
        .isTrue();
    assertThat(Peer.nextMessage(listening, (int) PROMPT_MS).at("/params/n").asInt())
        .isEqualTo(2);
    prompt = Math.max(prompt, (System.nanoTime() - start) / 1_000_000);

    long blockedMs = blockedCall.get(WRITE.toMillis() + SLACK_MS + 2000, TimeUnit.MILLISECONDS)
        / 1_000_000;
    LongSummaryStatistics closed = new LongSummaryStatistics();
    closed.accept(blockedMs);
    assertThat(blockedMs).as("ms a notification waited on a client that does not read")
        .isBetween(WRITE.toMillis() - 50, WRITE.toMillis() + SLACK_MS);
    await().atMost(Duration.ofSeconds(2)).until(() -> server.metrics().listeningStreams() == 1
        && http.openConnections() == 1);
    report("an SSE listener that does not read", closed, WRITE, prompt);

    // The good listener is still served; a lost stream does not end its session (MCP spec).
    assertThat(server.notify(good, "notifications/message", McpJson.object().put("n", 3)))
        .isTrue();
    assertThat(Peer.nextMessage(listening, 5000).at("/params/n").asInt()).isEqualTo(3);
    assertThat(peer.ping(null, bad)).isEqualTo(200);
    listening.close();
    assertThat(peer.delete(null, bad).status()).isEqualTo(204);
    assertThat(peer.delete(null, good).status()).isEqualTo(204);
    assertBackToIdle(0);
  }

  /**
   * Clients that never read their answers: two whose answer is one 6 MiB JSON body, two whose
   * tool streams 8 MiB of log messages (SSE) before it answers. A streamed answer's stream is
   * probed every 100 ms while its request runs, and a probe used to wait for the writer's lock
   * on one of the transport's threads: 300 threads per stuck stream in a 30 s write timeout
   * (3,000 in the 5 minutes of idle timeout that bounded it before), more than the 256 platform
   * threads the transport has on Java 17, which also run every other client's keep-alives, SSE
   * upgrades and body timeouts. On the old code 22 threads waited here within a second. A probe
   * now leaves a stream that is being written alone. (The threads are found by name, so with
   * virtual threads, which no thread dump lists, that check holds trivially.)
   */
  @Test
  void postClientsThatNeverReadTheirResponsesAreDisconnectedAtTheWriteTimeout()
      throws Exception {
    start(b -> { });
    String session = peer.initialize(null);
    // Not resumable, so that a lost stream cancels its request, which stops the flood.
    String attackers = peer.initialize(null, Peer.NOT_RESUMABLE, "{}");
    long cancellations = server.metrics().cancellations();
    List<String> calls = List.of(Peer.call(5, "big", "{\"mib\":6}"), Peer.call(6, "flood"));
    answering.set(0);
    for (int i = 0; i < 4; i++) {
      String call = calls.get(i % 2);
      Socket s = unreadSocket();
      send(s, postHead(attackers, call.length()).replace("Accept: application/json",
          "Accept: application/json, text/event-stream") + call);
    }
    // Long enough for the answers to fill the sockets' buffers and wait on the clients.
    Thread.sleep(300);
    long waiting = threadsWaitingInATick();
    long prompt = servedDuringTheAttack(session);
    while (http.openConnections() > 0 && System.nanoTime() - answering.get() < WRITE.toNanos()) {
      waiting = Math.max(waiting, threadsWaitingInATick());
      Thread.sleep(50);
    }
    assertThat(waiting).as("transport threads waiting for a stream that is being written")
        .isZero();
    await().atMost(Duration.ofMillis(WRITE.toMillis() + SLACK_MS + 2000))
        .pollInterval(Duration.ofMillis(10)).until(() -> http.openConnections() == 0);
    // Counted from the last bytes handed over: encoding them and filling the socket's buffers
    // takes milliseconds, and the write then waits on its client.
    long closedMs = (System.nanoTime() - answering.get()) / 1_000_000;
    LongSummaryStatistics closed = new LongSummaryStatistics();
    closed.accept(closedMs);
    assertThat(closedMs).as("ms from the last answer until its client was disconnected")
        .isBetween(WRITE.toMillis(), WRITE.toMillis() + SLACK_MS);
    report("POST clients that do not read (6 MiB answers, 8 MiB streams)", closed, WRITE,
        prompt);
    // The connection is closed by Jetty's write timeout before the failed write returns to the
    // tool's thread, which is where the loss cancels the request: on a loaded machine the count
    // trails the close by a moment.
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(10))
        .until(() -> server.metrics().cancellations() - cancellations >= 2);
    assertThat(server.metrics().cancellations() - cancellations)
        .as("streamed requests cancelled by their lost streams").isEqualTo(2);
    assertBackToIdle(2);
  }

  /**
   * Counts the transport's threads parked on a stream's lock in a keep-alive or probe (a tick
   * that writes itself, such as the switch to SSE, may wait on its own write; that is one
   * thread per stream and ends at the write timeout).
   */
  private static long threadsWaitingInATick() {
    return Thread.getAllStackTraces().entrySet().stream()
        .filter(e -> e.getKey().getName().startsWith("keel-http-"))
        .map(Map.Entry::getValue)
        .filter(stack -> Arrays.stream(stack).anyMatch(f -> f.getMethodName().equals("lock")
            && f.getClassName().startsWith(ReentrantLock.class.getName())))
        .filter(stack -> Arrays.stream(stack).anyMatch(f -> f.getMethodName().equals("tick")))
        .count();
  }

  @Test
  void halfOpenConnectionsAreClosedAtTheHeaderTimeout() throws Exception {
    start(b -> { });
    String session = peer.initialize(null);
    await().atMost(Duration.ofSeconds(2)).until(() -> http.openConnections() == 0);
    int count = 200;
    long opened = System.nanoTime();
    for (int i = 0; i < count; i++) {
      connect(new Socket());
    }
    await().atMost(HEADER.dividedBy(2)).until(() -> http.openConnections() == count);
    long prompt = servedDuringTheAttack(session);
    await().atMost(Duration.ofMillis(HEADER.toMillis() + SLACK_MS + 1000))
        .pollInterval(Duration.ofMillis(10)).until(() -> http.openConnections() == 0);
    long closedMs = (System.nanoTime() - opened) / 1_000_000;
    for (Socket s : sockets) {
      s.setSoTimeout(1000);
      assertThat(s.getInputStream().read()).as("a half-open connection, closed").isEqualTo(-1);
    }
    LongSummaryStatistics closed = new LongSummaryStatistics();
    closed.accept(closedMs);
    assertThat(closedMs).as("ms until %d half-open connections were closed", count)
        .isBetween(HEADER.toMillis(), HEADER.toMillis() + SLACK_MS);
    report(count + " half-open connections", closed, HEADER, prompt);
    assertBackToIdle(1);
  }

  @Test
  void pastMaxConnectionsNewOnesWaitWhileTheOpenOnesAreServed() throws Exception {
    int max = 8;
    // Twice the others' header timeout: the checks made at the limit must be done before the
    // timeout frees it, even on a loaded machine.
    Duration header = HEADER.multipliedBy(2);
    start(b -> b.maxConnections(max).headerTimeout(header));
    String session = peer.initialize(null);
    await().atMost(Duration.ofSeconds(2)).until(() -> http.openConnections() == 0);
    Socket keptSocket = connect(new Socket());
    keptSocket.setSoTimeout(5000);
    RawHttp kept = RawHttp.over(keptSocket);
    assertThat(call(kept, session)).isEqualTo("still here");
    long opened = System.nanoTime();
    for (int i = 1; i < max; i++) {
      connect(new Socket());
    }
    await().atMost(header.dividedBy(2)).until(() -> http.openConnections() == max);
    // The kernel completes the handshake, but the server does not take the connection.
    Socket waiting = connect(new Socket());
    send(waiting, "GET /health HTTP/1.1\r\nHost: 127.0.0.1:" + http.port()
        + "\r\nConnection: close\r\n\r\n");
    waiting.setSoTimeout((int) header.toMillis() / 8);
    InputStream in = waiting.getInputStream();
    assertThat(unanswered(in)).as("a connection past the limit is not served yet").isTrue();
    assertThat(http.openConnections()).isEqualTo(max);
    long start = System.nanoTime();
    assertThat(call(kept, session)).isEqualTo("still here");
    long prompt = (System.nanoTime() - start) / 1_000_000;
    assertThat(prompt).as("ms for a tools/call on an open connection at the limit")
        .isLessThan(PROMPT_MS);
    // The header timeout frees the places the half-open connections took.
    waiting.setSoTimeout((int) (header.toMillis() + SLACK_MS + 1000));
    String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    long servedMs = (System.nanoTime() - opened) / 1_000_000;
    assertThat(answer).startsWith("HTTP/1.1 200");
    LongSummaryStatistics waited = new LongSummaryStatistics();
    waited.accept(servedMs);
    assertThat(servedMs).as("ms until the connection past the limit was served")
        .isBetween(header.toMillis(), header.toMillis() + SLACK_MS);
    report("a connection past maxConnections=" + max + ", served", waited, header, prompt);
    // Jetty waits for the client's close after a Connection: close answer, as it should.
    waiting.close();
    kept.close();
    assertBackToIdle(1);
  }

  /** One attacking connection: it trickles bytes until the server ends it, and reads. */
  private record Attack(Socket socket, long openedNanos, Future<Long> closedAt,
      StringBuilder text) {
    String received() {
      synchronized (text) {
        return text.toString();
      }
    }
  }

  /**
   * Opens a connection, sends {@code first}, then one byte every {@link #TRICKLE_MS} (a
   * character of {@code first} from {@code from} on when {@code spaces} is false, else a space,
   * which a JSON body may hold anywhere), and reads whatever the server sends until it closes.
   */
  private Attack attack(String first, int from, boolean spaces) throws IOException {
    Socket s = connect(new Socket());
    byte[] bytes = first.getBytes(StandardCharsets.US_ASCII);
    long opened = System.nanoTime();
    OutputStream out = s.getOutputStream();
    out.write(bytes, 0, spaces ? bytes.length : from);
    out.flush();
    threads.submit(() -> {
      try {
        for (int i = from; ; i++) {
          Thread.sleep(TRICKLE_MS);
          out.write(spaces ? ' ' : bytes[i % bytes.length]);
          out.flush();
        }
      } catch (IOException | InterruptedException e) {
        return null; // closed by the server, or the test is over
      }
    });
    StringBuilder text = new StringBuilder();
    Future<Long> closed = threads.submit(() -> {
      s.setSoTimeout(60_000);
      InputStream in = s.getInputStream();
      byte[] buf = new byte[4096];
      try {
        int n;
        while ((n = in.read(buf)) >= 0) {
          synchronized (text) {
            text.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
          }
        }
      } catch (IOException e) {
        // reset: the server closed while a byte was on its way
      }
      return System.nanoTime();
    });
    return new Attack(s, opened, closed, text);
  }

  /**
   * Waits for every attack to be ended by the server and returns how long after its opening
   * each was, having checked each against {@code bound}.
   */
  private LongSummaryStatistics closedAfter(List<Attack> attacks, Duration bound)
      throws Exception {
    LongSummaryStatistics stats = new LongSummaryStatistics();
    long deadline = System.nanoTime() + (bound.toMillis() + SLACK_MS + 1000) * 1_000_000;
    for (Attack a : attacks) {
      long wait = Math.max(1, deadline - System.nanoTime());
      long closed;
      try {
        closed = a.closedAt().get(wait, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        throw new AssertionError("the server left an attacking connection open for "
            + (bound.toMillis() + SLACK_MS + 1000) + " ms (bound " + bound.toMillis() + " ms)");
      }
      long ms = (closed - a.openedNanos()) / 1_000_000;
      assertThat(ms).as("ms until the server ended an attacking connection")
          .isBetween(bound.toMillis(), bound.toMillis() + SLACK_MS);
      stats.accept(ms);
    }
    return stats;
  }

  /**
   * Checks that a good client is served promptly while the attack goes on: a {@code tools/call}
   * in its session and {@code /health}, each on a new connection. Returns the slower one's ms.
   */
  private long servedDuringTheAttack(String session) throws IOException {
    long start = System.nanoTime();
    RawHttp.Response r = peer.post(null, session, Peer.call(7, "echo",
        "{\"text\":\"still here\"}"), "Accept", "application/json");
    long call = (System.nanoTime() - start) / 1_000_000;
    assertThat(r.status()).as("tools/call beside the attack: %s", r.body()).isEqualTo(200);
    assertThat(Peer.text(Peer.json(r.body()))).isEqualTo("still here");
    start = System.nanoTime();
    RawHttp.Response health = RawHttp.exchange(http.port(), "GET", "/health", Map.of(), null);
    long healthMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(health.status()).isEqualTo(200);
    assertThat(call).as("ms for a tools/call beside the attack").isLessThan(PROMPT_MS);
    assertThat(healthMs).as("ms for /health beside the attack").isLessThan(PROMPT_MS);
    return Math.max(call, healthMs);
  }

  /** A tools/call on a kept-alive connection; returns the tool's text. */
  private static String call(RawHttp kept, String session) throws IOException {
    RawHttp.Response r = kept.request("POST", "/mcp", Map.of("Content-Type",
        "application/json", "Accept", "application/json", "Mcp-Session-Id", session),
        Peer.call(8, "echo", "{\"text\":\"still here\"}"));
    assertThat(r.status()).isEqualTo(200);
    return Peer.text(Peer.json(r.body()));
  }

  /** The server holds nothing for the attackers: only {@code sessions} good sessions. */
  private void assertBackToIdle(int sessions) {
    await().atMost(Duration.ofSeconds(3)).untilAsserted(() -> {
      assertThat(http.openConnections()).as("open connections").isZero();
      assertThat(server.metrics().inFlightRequests()).as("requests in flight").isZero();
      assertThat(server.metrics().listeningStreams()).as("listening streams").isZero();
      assertThat(http.servlet().openStreams()).as("open streams").isZero();
      assertThat(http.servlet().openListeningStreams()).as("open GET streams").isZero();
      assertThat(http.servlet().bufferedBodyBytes()).as("buffered body bytes").isZero();
      assertThat(server.metrics().sessions()).as("sessions").isEqualTo(sessions);
      assertThat(http.servlet().trackedSessions()).as("sessions with HTTP state")
          .isEqualTo(sessions);
    });
  }

  private String postHead(String session, int length) {
    return "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + http.port()
        + "\r\nContent-Type: application/json\r\nAccept: application/json\r\n"
        + "Mcp-Session-Id: " + session + "\r\nContent-Length: " + length + "\r\n\r\n";
  }

  /** A socket that takes little before the sender must wait: a client that does not read. */
  private Socket unreadSocket() throws IOException {
    Socket s = new Socket();
    s.setReceiveBufferSize(4096);
    return connect(s);
  }

  private Socket connect(Socket s) throws IOException {
    sockets.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", http.port()), 5000);
    return s;
  }

  private static void send(Socket s, String text) throws IOException {
    s.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
    s.getOutputStream().flush();
  }

  /** Whether nothing at all (no byte, no close) comes before the socket's read timeout. */
  private static boolean unanswered(InputStream in) throws IOException {
    try {
      in.read();
      return false;
    } catch (SocketTimeoutException e) {
      return true;
    }
  }

  private static void report(String what, LongSummaryStatistics ended, Duration bound,
      long promptMs) {
    System.out.printf("%s: ended after %d-%d ms (bound %d ms); good client %d ms%n", what,
        ended.getMin(), ended.getMax(), bound.toMillis(), promptMs);
  }
}
