package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.ClientTransport;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.SessionChangedException;
import dev.keel.mcp.client.SessionExpiredException;
import dev.keel.mcp.client.StdioTransport;
import dev.keel.mcp.client.StreamableHttpTransport;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.client.internal.SessionPins;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.node.ObjectNode;

/**
 * Session epochs and pins (SPEC §4, invariants 47-51) against a real Keel server over HTTP: a
 * server-side tool records every payload it receives with the session it arrived in, so a test
 * can show that a payload of an ended session never reached the one that replaced it.
 */
class SessionPinsTest {

  /** What the server received: the payload and the session it came in. */
  record Received(String payload, String session) {}

  private final List<Received> received = new CopyOnWriteArrayList<>();
  private McpHttpServer http;
  private final List<McpClient> clients = new ArrayList<>();

  @BeforeEach
  void start() {
    ObjectNode schema = McpJson.standard().parseObject(
        "{\"type\":\"object\",\"properties\":{\"payload\":{\"type\":\"string\"}},"
            + "\"required\":[\"payload\"]}");
    McpServer server = McpServer.builder().name("pins").version("1.0.0")
        .tool(Tool.builder("record").description("Records its payload").inputSchema(schema)
            .build(), (ctx, args) -> {
              received.add(new Received(args.get("payload").asString(), ctx.sessionId()));
              return CallToolResult.text("recorded");
            })
        .build();
    http = McpHttpServer.builder(server).port(0).start();
  }

  @AfterEach
  void stop() {
    clients.forEach(McpClient::close);
    http.close();
  }

  private McpClient legacyClient() {
    McpClient client = McpClient.builder(StreamableHttpTransport.builder(http.endpoint())
            .listeningStream(false).build())
        .era(Era.LEGACY).requestTimeout(Duration.ofSeconds(20)).connect();
    clients.add(client);
    return client;
  }

  private static ObjectNode payload(String value) {
    return McpJson.object().put("payload", value);
  }

  /** Ends a session at the server, as an idle timeout or a restart would. */
  private void endAtServer(String sessionId) throws Exception {
    HttpResponse<Void> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(http.endpoint()).header("Mcp-Session-Id", sessionId)
            .header("MCP-Protocol-Version", "2025-11-25").DELETE().build(),
        HttpResponse.BodyHandlers.discarding());
    assertThat(response.statusCode()).isLessThan(300);
  }

  @Test
  void inv47_aRequestBuiltInOneSessionIsNeverWrittenIntoTheNext() throws Exception {
    McpClient client = legacyClient();
    client.listTools();
    ClientTransport transport = client.transport();
    String first = transport.sessionId();
    long built = transport.sessionEpoch();
    // Built in the first session...
    JsonRpcRequest request = new JsonRpcRequest(RequestId.of(9_001), "tools/call",
        McpJson.object().put("name", "record").set("arguments", payload("built-in-first")));

    // ...which then ends and is replaced before the request reaches the wire.
    endAtServer(first);
    assertThatThrownBy(() -> client.callTool("record", payload("trigger")))
        .isInstanceOf(SessionExpiredException.class);
    client.listTools();
    assertThat(transport.sessionId()).isNotNull().isNotEqualTo(first);
    assertThat(transport.sessionEpoch()).isGreaterThan(built);

    assertThatThrownBy(() -> transport.pinnedToSession(built,
        () -> transport.send(request, ClientTransport.SendOptions.legacy("2025-11-25"))))
        .isInstanceOf(SessionChangedException.class);
    // The same through the client: a call pinned to the ended session is refused.
    assertThatThrownBy(() -> transport.pinnedToSession(built,
        () -> client.callTool("record", payload("pinned-to-first"))))
        .isInstanceOf(SessionChangedException.class);

    Thread.sleep(200);
    assertThat(received).extracting(Received::payload)
        .doesNotContain("built-in-first", "pinned-to-first", "trigger");
    // An unpinned call goes to the new session.
    client.callTool("record", payload("fresh"));
    assertThat(received).containsExactly(new Received("fresh", transport.sessionId()));
  }

  @Test
  void inv48_thePinIsCheckedAtTheWireWhileARecoveryRaces() throws Exception {
    McpClient client = legacyClient();
    ClientTransport transport = client.transport();
    String first = transport.sessionId();
    long firstEpoch = transport.sessionEpoch();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    AtomicInteger refused = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger lost = new AtomicInteger();
    CountDownLatch go = new CountDownLatch(1);
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        int writer = w;
        writers.add(pool.submit(() -> {
          go.await();
          for (int i = 0; i < 40; i++) {
            String p = "w" + writer + "-" + i;
            try {
              transport.pinnedToSession(firstEpoch, () -> client.callTool("record", payload(p)));
              sent.incrementAndGet();
            } catch (SessionChangedException | SessionExpiredException e) {
              refused.incrementAndGet();
            } catch (McpException e) {
              // In flight while the session ended: the server refused it without running it.
              assertThat(e.code()).isEqualTo(-32000);
              refused.incrementAndGet();
            } catch (TransportException e) {
              // In flight while the session ended, and its stream closed with it: it went out
              // on the first session, and whether it ran there is unknown (never re-sent).
              lost.incrementAndGet();
            }
          }
          return null;
        }));
      }
      // The recovering thread: the first session ends while the writers are busy, and this
      // thread's next request recovers.
      Future<?> recoverer = pool.submit(() -> {
        go.await();
        Thread.sleep(30);
        endAtServer(first);
        for (int i = 0; i < 5; i++) {
          try {
            client.listTools();
          } catch (SessionExpiredException e) {
            // a concurrent recovery: the next try uses the new session
          }
        }
        return null;
      });
      go.countDown();
      recoverer.get(60, TimeUnit.SECONDS);
      for (Future<?> f : writers) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    String second = transport.sessionId();
    assertThat(second).isNotNull().isNotEqualTo(first);
    assertThat(refused.get()).as("writes refused once the first session ended").isPositive();
    // Not one payload pinned to the first session arrived in the second.
    assertThat(received).filteredOn(r -> r.session().equals(second)).isEmpty();
    assertThat(received).allSatisfy(r -> assertThat(r.session()).isEqualTo(first));
    assertThat(received.size()).isBetween(sent.get(), sent.get() + lost.get());
  }

  @Test
  void inv49_theEpochOnlyGrowsAndMovesWhenASessionEndsOrChanges() throws Exception {
    McpClient client = legacyClient();
    client.listTools();
    ClientTransport transport = client.transport();
    long e0 = transport.sessionEpoch();
    client.listTools();
    assertThat(transport.sessionEpoch()).as("requests do not move it").isEqualTo(e0);

    endAtServer(transport.sessionId());
    assertThatThrownBy(() -> client.callTool("record", payload("x")))
        .isInstanceOf(SessionExpiredException.class);
    long e1 = transport.sessionEpoch();
    assertThat(e1).as("a 404 moves it").isGreaterThan(e0);
    client.listTools();
    assertThat(transport.sessionEpoch()).as("the new session is the epoch the 404 opened")
        .isEqualTo(e1);

    client.close();
    assertThat(transport.sessionEpoch()).as("closing (DELETE) moves it").isGreaterThan(e1);

    // A stateless client has no session: closing it moves nothing.
    McpClient modern = McpClient.builder(StreamableHttpTransport.builder(http.endpoint()).build())
        .connect();
    assertThat(modern.era()).isEqualTo(Era.MODERN);
    long m0 = modern.transport().sessionEpoch();
    modern.close();
    assertThat(modern.transport().sessionEpoch()).isEqualTo(m0);
  }

  @Test
  void inv49_aStdioProcessEndingEndsItsSessionButASessionlessOneMovesNothing() {
    StdioTransport legacy = StdioTransport.builder(KeelProcess.command("fixtures", "--stdio"))
        .build();
    McpClient client = McpClient.builder(legacy).era(Era.LEGACY).connect();
    long before = legacy.sessionEpoch();
    client.close();
    assertThat(legacy.sessionEpoch()).isGreaterThan(before);

    StdioTransport stateless = StdioTransport.builder(KeelProcess.command("fixtures", "--stdio"))
        .build();
    McpClient modern = McpClient.builder(stateless).era(Era.MODERN).connect();
    long m0 = stateless.sessionEpoch();
    modern.close();
    assertThat(stateless.sessionEpoch()).isEqualTo(m0);
  }

  @Test
  void inv50_theReplacementHandshakeRunsUnpinnedWhileTheEndedSessionStaysRefused()
      throws Exception {
    McpClient client = legacyClient();
    ClientTransport transport = client.transport();
    String first = transport.sessionId();
    long firstEpoch = transport.sessionEpoch();
    endAtServer(first);
    // Pinned to the first session, the caller's idempotent request meets the 404: the client
    // re-initializes (unpinned, so the handshake goes through) but the re-send stays refused.
    assertThatThrownBy(() -> transport.pinnedToSession(firstEpoch, client::listTools))
        .isInstanceOf(SessionChangedException.class);
    assertThat(transport.sessionId()).as("the replacement session exists").isNotNull()
        .isNotEqualTo(first);
    assertThatThrownBy(() -> transport.pinnedToSession(firstEpoch,
        () -> client.callTool("record", payload("late")))).isInstanceOf(
            SessionChangedException.class);
    assertThat(received).isEmpty();
    // Pinned to the new session, requests flow.
    long secondEpoch = transport.sessionEpoch();
    transport.pinnedToSession(secondEpoch, () -> client.callTool("record", payload("now")));
    assertThat(received).containsExactly(new Received("now", transport.sessionId()));
  }

  @Test
  void inv51_pinsAndGuardsArePerThreadAndPerTransportNestAndRestoreOnExceptions()
      throws Exception {
    McpClient one = legacyClient();
    McpClient two = legacyClient();
    ClientTransport t1 = one.transport();
    ClientTransport t2 = two.transport();
    long e1 = t1.sessionEpoch();
    long e2 = t2.sessionEpoch();

    // Nesting across two transports: each keeps its own pin; the inner block's exception
    // restores both on the way out.
    assertThatThrownBy(() -> t1.pinnedToSession(e1 + 7, () -> t2.pinnedToSession(e2, () -> {
      assertThat(SessionPins.pinOf(t1)).isEqualTo(e1 + 7);
      assertThat(SessionPins.pinOf(t2)).isEqualTo(e2);
      two.callTool("record", payload("t2-inside-t1-pin"));
      assertThatThrownBy(() -> one.callTool("record", payload("t1-stale-pin")))
          .isInstanceOf(SessionChangedException.class);
      throw new IllegalStateException("boom");
    }))).isInstanceOf(IllegalStateException.class).hasMessage("boom");
    assertThat(SessionPins.pinOf(t1)).isNull();
    assertThat(SessionPins.pinOf(t2)).isNull();
    one.callTool("record", payload("t1-after"));

    // An inner pin replaces the outer one for its block only.
    t1.pinnedToSession(e1 + 7, () -> t1.pinnedToSession(e1, () -> {
      one.callTool("record", payload("inner-pin"));
      return null;
    }));

    // Guards: a refusing guard stops the write; another thread is not guarded.
    AtomicInteger guardRuns = new AtomicInteger();
    assertThatThrownBy(() -> t1.guardedWrites(() -> {
      guardRuns.incrementAndGet();
      throw new IllegalStateException("the host withdrew the request");
    }, () -> {
      Future<CallToolResult> other = Executors.newSingleThreadExecutor()
          .submit(() -> one.callTool("record", payload("other-thread")));
      try {
        assertThat(other.get(20, TimeUnit.SECONDS).failed()).isFalse();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return one.callTool("record", payload("guarded"));
    })).isInstanceOf(IllegalStateException.class).hasMessage("the host withdrew the request");
    assertThat(guardRuns.get()).isEqualTo(1);
    one.callTool("record", payload("unguarded-again"));

    // Another thread sees none of this thread's pins.
    t1.pinnedToSession(e1 + 7, () -> {
      Future<?> other = Executors.newSingleThreadExecutor()
          .submit(() -> one.callTool("record", payload("other-thread-unpinned")));
      try {
        other.get(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new AssertionError(e);
      }
      return null;
    });

    assertThat(received).extracting(Received::payload).containsExactlyInAnyOrder(
        "t2-inside-t1-pin", "t1-after", "inner-pin", "other-thread", "unguarded-again",
        "other-thread-unpinned");
  }
}
