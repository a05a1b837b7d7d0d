package dev.keel.mcp.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.server.McpServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * What happens when streams end (SPEC §3.4, §3.5; seed invariants 20, 27, 28, 46): a dropped
 * connection cancels a request only when its response can no longer be replayed, a normal end
 * never trips the token, closing a stream cleans up exactly once and leaves nothing behind, and
 * a stream racing a DELETE never brings the session back.
 */
class StreamCleanupTest {

  static final Blocker block = new Blocker(true);
  static final AtomicInteger hookRuns = new AtomicInteger();
  static final AtomicReference<CancellationToken> lastToken = new AtomicReference<>();

  static McpServer server;
  static McpHttpServer http;
  static Peer peer;
  final List<AutoCloseable> extra = new ArrayList<>();

  @BeforeAll
  static void start() {
    server = McpServer.builder()
        .tool(Tool.builder("logThenBlock").build(), block)
        .tool(Tool.builder("completes").build(), (ctx, args) -> {
          lastToken.set(ctx.cancellation());
          ctx.cancellation().onCancel(hookRuns::incrementAndGet);
          ctx.log(LoggingLevel.INFO, "working");
          return CallToolResult.text("done");
        })
        .build();
    // Keep-alives every 100 ms are how the server notices a peer that went away.
    http = McpHttpServer.builder(server).port(0)
        .servlet(b -> b.keepAlive(Duration.ofMillis(100)))
        .start();
    peer = new Peer(http.port());
  }

  @AfterAll
  static void stop() {
    http.close();
    server.close();
  }

  @BeforeEach
  void reset() {
    block.reset();
    hookRuns.set(0);
    lastToken.set(null);
  }

  @AfterEach
  void stopExtra() throws Exception {
    block.release.countDown();
    for (AutoCloseable c : extra) {
      c.close();
    }
  }

  @Test
  void inv20_disconnectOfANonResumableStreamCancelsTheRequest() throws Exception {
    // 2025-06-18 sessions get no event ids: a lost response cannot be replayed.
    String session = peer.initialize(null, Peer.NOT_RESUMABLE, "{}");
    SseClient call = peer.postStream(null, session, Peer.call(1, "logThenBlock"));
    assertThat(call.head().status()).isEqualTo(200);
    assertThat(call.head().header("content-type")).startsWith("text/event-stream");
    SseClient.Event log = call.nextWithin(5000);
    assertThat(log.id()).as("not resumable: no event ids").isNull();
    assertThat(Peer.json(log).get("method").asString()).isEqualTo("notifications/message");
    assertThat(block.awaitStarted()).isTrue();

    call.abort();

    await().atMost(Duration.ofSeconds(5)).until(() -> block.cancelReason.get() != null);
    assertThat(block.cancelReason.get()).contains("disconnect");
    assertThat(block.awaitInterrupted(5000)).isTrue();
    assertThat(block.returnedNormally).isFalse();
    await().atMost(Duration.ofSeconds(5))
        .until(() -> server.metrics().inFlightRequests() == 0);
    assertThat(peer.delete(null, session).status()).isEqualTo(204);
  }

  @Test
  void inv20_normalCompletionNeverTripsTheToken() throws Exception {
    String session = peer.initialize(null, Peer.NOT_RESUMABLE, "{}");
    long cancellationsBefore = server.metrics().cancellations();
    // Over a stream: the log goes first, then the response ends it.
    try (SseClient call = peer.postStream(null, session, Peer.call(1, "completes"))) {
      assertThat(call.head().header("content-type")).startsWith("text/event-stream");
      assertThat(Peer.text(Peer.response(call, 5000))).isEqualTo("done");
      assertThat(call.awaitEnd(2000)).isTrue();
      // The client goes away after the response: that is no cancellation.
      call.abort();
    }
    CancellationToken streamed = lastToken.get();
    // Plain JSON (the client takes no SSE, so the log is dropped and the response is all).
    RawHttp.Response json = peer.post(null, session, Peer.call(2, "completes"),
        "Accept", "application/json");
    assertThat(json.status()).isEqualTo(200);
    assertThat(Peer.text(Peer.json(json.body()))).isEqualTo("done");
    CancellationToken plain = lastToken.get();

    assertThat(streamed).isNotNull().isNotSameAs(plain);
    await().during(Duration.ofMillis(400)).atMost(Duration.ofSeconds(2))
        .until(() -> hookRuns.get() == 0);
    assertThat(streamed.isCancelled()).isFalse();
    assertThat(plain.isCancelled()).isFalse();
    assertThat(server.metrics().cancellations()).isEqualTo(cancellationsBefore);
    assertThat(peer.delete(null, session).status()).isEqualTo(204);
  }

  @Test
  void disconnectOfAResumableStreamDoesNotCancelAndTheResultIsReplayed() throws Exception {
    String session = peer.initialize(null, Peer.LATEST, "{}");
    SseClient call = peer.postStream(null, session, Peer.call(3, "logThenBlock"));
    SseClient.Event priming = call.nextWithin(5000);
    assertThat(priming.id()).isNotBlank();
    assertThat(priming.data()).isEmpty();
    SseClient.Event log = call.nextWithin(5000);
    assertThat(Peer.json(log).get("method").asString()).isEqualTo("notifications/message");
    assertThat(log.id()).isNotBlank();
    assertThat(block.awaitStarted()).isTrue();

    call.abort();
    // Several keep-alive rounds hit the dead connection; the request goes on regardless.
    await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(3))
        .until(() -> block.cancelReason.get() == null);
    assertThat(block.awaitInterrupted(0)).isFalse();

    block.release.countDown();
    assertThat(block.awaitEnded(5000)).isTrue();
    assertThat(block.returnedNormally).isTrue();

    try (SseClient resumed = peer.get(null, session, "Last-Event-ID", log.id())) {
      assertThat(resumed.head().status()).isEqualTo(200);
      assertThat(resumed.awaitEnd(3000)).isTrue();
      List<SseClient.Event> events = resumed.remaining();
      assertThat(events).hasSize(1);
      JsonNode response = Peer.json(events.get(0));
      assertThat(response.get("id").asInt()).isEqualTo(3);
      assertThat(Peer.text(response)).isEqualTo("released");
    }
    assertThat(peer.delete(null, session).status()).isEqualTo(204);
  }

  @Test
  void inv27_closingAStreamRunsItsCleanupExactlyOnce() throws Exception {
    McpServer own = McpServer.builder().build();
    extra.add(own);
    // A cap of two: after the races, exactly two streams must fit again and a third must not,
    // which shows the transport's own stream count came back to exactly zero.
    CountingEventStore events = new CountingEventStore();
    McpHttpServer ownHttp = McpHttpServer.builder(own).port(0)
        .servlet(b -> b.keepAlive(Duration.ofMillis(50)).maxListeningStreams(2)
            .eventStore(events))
        .start();
    extra.add(0, ownHttp);
    Peer p = new Peer(ownHttp.port());

    AtomicInteger minListening = new AtomicInteger();
    AtomicBoolean sampling = new AtomicBoolean(true);
    Thread sampler = new Thread(() -> {
      while (sampling.get()) {
        minListening.accumulateAndGet(own.metrics().listeningStreams(), Math::min);
        java.util.concurrent.locks.LockSupport.parkNanos(50_000);
      }
    });
    sampler.setDaemon(true);
    sampler.start();
    // Streams left in the keep-alive set after a race, with the iteration and the newer GET's
    // status; a stream's close removes it there, so none may stay once every close ran.
    List<String> keptAlive = new ArrayList<>();
    List<String> revived = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      for (int i = 0; i < 30; i++) {
        String session = p.initialize(null);
        SseClient first = p.get(null, session);
        assertThat(first.head().status()).isEqualTo(200);
        first.nextWithin(5000);
        CountDownLatch go = new CountDownLatch(1);
        // Three close paths at once: the client drops, a newer GET replaces, a DELETE ends all.
        Future<?> disconnect = pool.submit(() -> {
          go.await();
          first.abort();
          return null;
        });
        Future<SseClient> newer = pool.submit(() -> {
          go.await();
          SseClient second = p.get(null, session);
          second.head();
          return second;
        });
        Future<Integer> delete = pool.submit(() -> {
          go.await();
          return p.delete(null, session).status();
        });
        go.countDown();
        disconnect.get(5, TimeUnit.SECONDS);
        assertThat(delete.get(5, TimeUnit.SECONDS)).isEqualTo(204);
        int status;
        try (SseClient second = newer.get(5, TimeUnit.SECONDS)) {
          // Before the DELETE it opens (and the DELETE ends it); after, the session is gone.
          status = second.head().status();
          assertThat(status).as("iteration %d", i).isIn(200, 404);
          // DELETE answered 204: no session with that id may live on. A GET racing the
          // DELETE can bring it back (see inv46); that is recorded, and its stream dropped.
          if (own.metrics().sessions() > revived.size()) {
            revived.add("iteration " + i);
            second.abort();
          } else if (status == 200) {
            assertThat(second.awaitEnd(3000)).as("iteration %d: the newer stream ended", i)
                .isTrue();
          }
        }
        int iteration = i;
        await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
            .atMost(Duration.ofSeconds(5)).untilAsserted(() ->
            assertThat(own.metrics().listeningStreams())
                .as("sessions with a listening stream after iteration %d", iteration).isZero());
        // Every close ran before the DELETE answered and the newer stream ended.
        int expected = keptAlive.size();
        try {
          await().pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
              .atMost(Duration.ofMillis(60))
              .until(() -> ownHttp.servlet().openStreams() == expected);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
          keptAlive.add("iteration " + i + " (newer GET " + status + ")");
        }
      }
    } finally {
      sampling.set(false);
      sampler.join(1000);
      pool.shutdownNow();
    }
    assertThat(minListening.get()).as("listening streams never went negative").isZero();
    assertThat(own.metrics().listeningStreams()).isZero();
    assertThat(ownHttp.servlet().openListeningStreams()).isZero();
    assertThat(own.metrics().sessions()).isEqualTo(revived.size());
    // Checked now, before new sessions store events of their own.
    java.util.Set<String> storedForDeletedSessions = events.sessionsWithEvents();
    int trackedSessions = ownHttp.servlet().trackedSessions();

    String a = p.initialize(null);
    String b = p.initialize(null);
    String c = p.initialize(null);
    try (SseClient sa = p.get(null, a); SseClient sb = p.get(null, b)) {
      assertThat(sa.head().status()).isEqualTo(200);
      assertThat(sb.head().status()).isEqualTo(200);
      assertThat(p.getAnswer(null, c).status()).as("the cap still holds").isEqualTo(503);
    }
    p.delete(null, a);
    p.delete(null, b);
    p.delete(null, c);

    // Nothing is left behind: no closed stream stays kept alive (the servlet's open-stream
    // count returns to zero), and no events are kept for a deleted session.
    org.assertj.core.api.SoftAssertions.assertSoftly(soft -> {
      soft.assertThat(keptAlive).as("closed listening streams left in the keep-alive set")
          .isEmpty();
      soft.assertThat(ownHttp.servlet().openStreams()).as("open streams").isZero();
      soft.assertThat(storedForDeletedSessions).as("event logs kept for deleted sessions")
          .isEmpty();
      soft.assertThat(revived).as("sessions alive again after their DELETE answered 204")
          .isEmpty();
      soft.assertThat(trackedSessions).as("sessions the transport still tracks").isZero();
    });
  }

  /** The in-memory store, also telling which sessions it holds events for. */
  static final class CountingEventStore implements dev.keel.mcp.http.spi.EventStore {
    private final dev.keel.mcp.http.spi.EventStore delegate =
        dev.keel.mcp.http.spi.EventStore.inMemory(1000, 1 << 20);
    private final java.util.Set<String> sessions =
        java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Override
    public synchronized String append(String sessionId, String streamId, byte[] data) {
      sessions.add(sessionId);
      return delegate.append(sessionId, streamId, data);
    }

    @Override
    public java.util.Optional<String> streamOf(String sessionId, String eventId) {
      return delegate.streamOf(sessionId, eventId);
    }

    @Override
    public List<StoredEvent> after(String sessionId, String eventId) {
      return delegate.after(sessionId, eventId);
    }

    @Override
    public synchronized void forget(String sessionId) {
      sessions.remove(sessionId);
      delegate.forget(sessionId);
    }

    java.util.Set<String> sessionsWithEvents() {
      return java.util.Set.copyOf(sessions);
    }
  }

  /**
   * A GET that arrives while a DELETE is tearing its session down must not bring the session
   * back (the HTTP form of seed invariant 46). The race is narrow, so the test makes it
   * certain: it holds, through reflection, the per-principal counter entry the DELETE updates
   * between taking the session out of the table and forgetting its owner binding, sends the GET
   * into that gap, and then lets both go on. It only delays the DELETE's thread; it changes no
   * state. Everything asserted is what any client sees.
   */
  @Test
  void inv46_aListeningStreamRacingDeleteNeverBringsTheSessionBack() throws Exception {
    // Notification channels are off (the default): no GET may ever create a session.
    McpServer own = McpServer.builder().build();
    extra.add(own);
    McpHttpServer ownHttp = McpHttpServer.builder(own).port(0)
        .servlet(b -> b.keepAlive(Duration.ofMillis(50)))
        .start();
    extra.add(0, ownHttp);
    Peer p = new Peer(ownHttp.port());
    String session = p.initialize(null);

    Object core = internal(own.engine(), "core");
    Object table = core.getClass().getMethod("sessions").invoke(core);
    @SuppressWarnings("unchecked")
    Map<String, Integer> perPrincipal = (Map<String, Integer>) internal(table, "perPrincipal");
    java.util.concurrent.locks.ReentrantLock admission =
        (java.util.concurrent.locks.ReentrantLock) internal(table, "admission");
    CountDownLatch holding = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread holder = new Thread(() -> perPrincipal.compute(
        dev.keel.mcp.server.Principal.local().fingerprint(), (k, v) -> {
          holding.countDown();
          try {
            release.await(10, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return v;
        }));
    holder.setDaemon(true);
    holder.start();
    ExecutorService pool = Executors.newSingleThreadExecutor();
    SseClient racing = null;
    try {
      assertThat(holding.await(5, TimeUnit.SECONDS)).isTrue();
      Future<Integer> delete = pool.submit(() -> p.delete(null, session).status());
      // The DELETE took the session out of the table and now waits inside its teardown.
      await().atMost(Duration.ofSeconds(5)).until(() -> own.metrics().sessions() == 0);
      racing = p.get(null, session);
      // Give the GET the time to get as far as it can (it may queue behind the teardown).
      try {
        await().atMost(Duration.ofSeconds(1)).until(admission::hasQueuedThreads);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        // a GET that is refused outright never queues: fine
      }
      release.countDown();
      assertThat(delete.get(5, TimeUnit.SECONDS)).isEqualTo(204);
      int status = racing.head().status();

      // Whatever the GET got, the session is gone and stays gone.
      assertThat(own.metrics().sessions()).as("live sessions after the DELETE (GET got %d)",
          status).isZero();
      assertThat(own.notify(session, "notifications/custom", null))
          .as("a notification for the deleted session was delivered").isFalse();
      assertThat(status).as("the racing GET").isIn(200, 404);
      if (status == 200) {
        assertThat(racing.awaitEnd(3000)).as("the racing GET's stream ended").isTrue();
      }
      assertThat(own.metrics().ownerBindings()).isZero();
    } finally {
      release.countDown();
      holder.join(5000);
      pool.shutdownNow();
      if (racing != null) {
        racing.abort();
      }
    }
  }

  private static Object internal(Object target, String field) throws Exception {
    Class<?> c = target.getClass();
    while (c != null) {
      try {
        java.lang.reflect.Field f = c.getDeclaredField(field);
        f.setAccessible(true);
        return f.get(target);
      } catch (NoSuchFieldException e) {
        c = c.getSuperclass();
      }
    }
    throw new NoSuchFieldException(field);
  }

  /**
   * Once a client has seen its listening stream open (the priming event of a resumable
   * session, the response head of an older one), a notification sent to the session reaches
   * that stream. Tried 20 times per era, since the failure is a race.
   */
  @Test
  void listeningStreamTakesNotificationsOnceTheClientHasSeenItOpen() throws Exception {
    List<String> missed = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      String session = peer.initialize(null);
      try (SseClient sse = peer.get(null, session)) {
        SseClient.Event priming = sse.nextWithin(5000);
        assertThat(priming.data()).isEmpty();
        if (!server.notify(session, "notifications/custom", null)) {
          missed.add("2025-11-25 attempt " + i);
        }
      } finally {
        peer.delete(null, session);
      }
      String legacy = peer.initialize(null, Peer.NOT_RESUMABLE, "{}");
      try (SseClient sse = peer.get(null, legacy)) {
        assertThat(sse.head().status()).isEqualTo(200);
        if (!server.notify(legacy, "notifications/custom", null)) {
          missed.add("2025-06-18 attempt " + i);
        }
      } finally {
        peer.delete(null, legacy);
      }
    }
    assertThat(missed).as("notifications not delivered to a stream the client saw open")
        .isEmpty();
  }

  @Test
  void inv28_nothingIsQueuedOntoAnEndedStream() throws Exception {
    String session = peer.initialize(null);
    SseClient listening = peer.get(null, session);
    assertThat(listening.head().status()).isEqualTo(200);
    listening.nextWithin(5000);
    Peer.notifyWhenAttached(server, session, "notifications/custom", null);
    Peer.nextMessage(listening, 5000);

    listening.abort();
    await().atMost(Duration.ofSeconds(5)).until(() -> server.metrics().listeningStreams() == 0);
    // (Earlier tests end their sessions, so no other stream of this server stays open.)
    await().atMost(Duration.ofSeconds(5)).until(() -> http.servlet().openStreams() == 0);

    // A list change and a notification find no stream: no error, nothing delivered or kept.
    server.addTool(Tool.builder("late").build(), (ctx, args) -> CallToolResult.text("x"));
    try {
      assertThat(server.notify(session, "notifications/custom", null)).isFalse();
      assertThat(server.metrics().listeningStreams()).isZero();
      assertThat(http.servlet().openStreams()).isZero();
      assertThat(peer.ping(null, session)).as("the session itself lives on").isEqualTo(200);
    } finally {
      server.removeTool("late");
      peer.delete(null, session);
    }
  }
}
