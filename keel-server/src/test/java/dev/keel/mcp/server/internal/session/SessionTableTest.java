package dev.keel.mcp.server.internal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.core.engine.OutboundRequests;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.metrics.ServerCounters;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class SessionTableTest {

  private static final Principal ALICE = Principal.of("alice");
  private static final Principal BOB = Principal.of("bob");
  private static final Duration IDLE = Duration.ofMinutes(30);
  /** Well past the idle timeout of a session touched now. */
  private static final long LATER = Duration.ofMinutes(31).toNanos();
  private static final String CHANNEL = "Y2hhbm5lbC1pZC1mb3ItdGhlLXNlc3Npb24tdGFibGU";

  private final ServerCounters counters = new ServerCounters(() -> 0, () -> 0);
  private final List<RealServerSession> closed = new CopyOnWriteArrayList<>();
  private final ExecutorService executor = Executors.newFixedThreadPool(2);

  @AfterEach
  void stopThreads() {
    executor.shutdownNow();
  }

  private SessionTable table(int max, int perPrincipal, boolean channels) {
    return new SessionTable(new SessionTable.Limits(max, perPrincipal, IDLE),
        new SessionOwnerRegistry(100_000, channels), counters, closed::add);
  }

  private static RealServerSession create(SessionTable table, Principal owner) {
    Optional<RealServerSession> session = table.create(owner, LoggingLevel.INFO);
    assertThat(session).as("a session for %s", owner.id()).isPresent();
    return session.get();
  }

  @Test
  void theTotalLimitRefusesNewSessionsAndNeverEvictsALiveOne() {
    SessionTable table = table(2, 10, false);
    RealServerSession first = create(table, ALICE);
    RealServerSession second = create(table, BOB);

    Optional<RealServerSession> third = table.create(ALICE, LoggingLevel.INFO);
    Optional<RealServerSession> fourth = table.create(Principal.of("carol"), LoggingLevel.INFO);

    assertThat(third).isEmpty();
    assertThat(fourth).isEmpty();
    assertThat(counters.refusedSessions()).isEqualTo(2);
    assertThat(table.size()).isEqualTo(2);
    assertThat(table.get(first.id())).containsSame(first);
    assertThat(table.get(second.id())).containsSame(second);
    assertThat(first.isClosed()).isFalse();
    assertThat(second.isClosed()).isFalse();
    assertThat(closed).isEmpty();
  }

  /**
   * A session taken over from another node (SPEC §3.3: the same id, the same owner) comes back
   * initialized, with what it had negotiated, bound to its owner; an id already held here and
   * a principal at its limit are refused as a new session would be.
   */
  @Test
  void aRestoredSessionKeepsItsIdOwnerAndNegotiationAndCountsAgainstTheLimits() {
    SessionTable table = table(10, 2, false);
    String id = "restored-session-id-from-another-node";
    dev.keel.mcp.core.schema.ClientCapabilities caps =
        dev.keel.mcp.core.schema.ClientCapabilities.none();
    dev.keel.mcp.core.schema.Implementation info =
        new dev.keel.mcp.core.schema.Implementation("client", null, "1.0", null, null, null);

    Optional<RealServerSession> restored =
        table.restore(id, ALICE, LoggingLevel.WARNING, "2025-11-25", caps, info);
    assertThat(restored).isPresent();
    RealServerSession s = restored.get();
    assertThat(s.id()).isEqualTo(id);
    assertThat(s.owner()).isEqualTo(ALICE);
    assertThat(s.initialized()).isTrue();
    assertThat(s.protocolVersion()).isEqualTo("2025-11-25");
    assertThat(s.clientCapabilities()).isSameAs(caps);
    assertThat(s.clientInfo()).isSameAs(info);
    assertThat(s.logLevel()).isEqualTo(LoggingLevel.WARNING);
    assertThat(s.isChannel()).isFalse();
    assertThat(table.get(id)).containsSame(s);
    assertThat(table.owned(id, ALICE)).containsSame(s);
    assertThat(table.owned(id, BOB)).isEmpty();

    assertThat(table.restore(id, ALICE, LoggingLevel.INFO, "2025-11-25", caps, info))
        .as("the id is held here already").isEmpty();
    assertThat(table.restore(id, BOB, LoggingLevel.INFO, "2025-11-25", caps, info))
        .as("the id is held here already, by someone else").isEmpty();
    assertThat(table.get(id)).containsSame(s);
    create(table, ALICE);
    assertThat(table.restore("another-restored-session-id", ALICE, LoggingLevel.INFO,
        "2025-11-25", caps, info)).as("alice at her limit of 2").isEmpty();
    assertThat(counters.refusedSessions()).isEqualTo(3);
    assertThat(table.size()).isEqualTo(2);
  }

  /**
   * An id whose binding names another owner is refused to anyone else, though no session of it
   * is live here (SPEC §3.3: an id is bound to the principal that initialized it), and is
   * counted as a refused session.
   */
  @Test
  void aRestoreOfAnIdBoundToAnotherOwnerIsRefusedAndCounted() {
    SessionTable table = table(10, 10, false);
    dev.keel.mcp.core.schema.ClientCapabilities caps =
        dev.keel.mcp.core.schema.ClientCapabilities.none();
    assertThat(table.owners().bind("bound-to-alice-elsewhere", ALICE.fingerprint())).isTrue();

    assertThat(table.restore("bound-to-alice-elsewhere", BOB, LoggingLevel.INFO, "2025-11-25",
        caps, null)).isEmpty();
    assertThat(counters.refusedSessions()).isEqualTo(1);
    assertThat(table.size()).isZero();
    assertThat(table.owners().ownedBy("bound-to-alice-elsewhere", ALICE.fingerprint()))
        .as("the binding stays alice's").isTrue();
    assertThat(table.restore("bound-to-alice-elsewhere", ALICE, LoggingLevel.INFO, "2025-11-25",
        caps, null)).isPresent();
  }

  /**
   * A listening stream that attaches while its session closes, on two threads at once, is
   * never left counted: either the close detaches it, or the attach sees the close and takes
   * itself back. Each round starts both threads together, the attach a little later each time,
   * so that over many rounds some attach lands between the close's two steps.
   */
  @Test
  void aListenerAttachingWhileItsSessionClosesIsNeverLeftCounted() throws Exception {
    SessionTable table = table(10, 10, false);
    dev.keel.mcp.server.transport.MessageStream stream = message -> true;
    for (int round = 0; round < 20_000; round++) {
      RealServerSession s = create(table, ALICE);
      java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(2);
      int offset = round % 200;
      Future<?> attach = executor.submit(() -> {
        start.await();
        // a different head start each round sweeps the attach across the close
        for (int spin = 0; spin < offset; spin++) {
          Thread.onSpinWait();
        }
        return s.attachListener(stream);
      });
      start.await();
      s.close();
      attach.get(5, TimeUnit.SECONDS);
      assertThat(counters.listeningStreams()).as("listening streams after round %d", round)
          .isZero();
    }
  }

  /**
   * A principal whose last session closed is no longer counted: else the counts grow with
   * every principal ever seen.
   */
  @Test
  void aPrincipalWithNoLiveSessionIsNoLongerCounted() {
    SessionTable table = table(10, 3, false);
    RealServerSession a1 = create(table, ALICE);
    RealServerSession a2 = create(table, ALICE);
    RealServerSession b1 = create(table, BOB);
    assertThat(table.countedPrincipals()).isEqualTo(2);
    a1.close();
    assertThat(table.countedPrincipals()).as("alice still has one").isEqualTo(2);
    a2.close();
    b1.close();
    assertThat(table.size()).isZero();
    assertThat(table.countedPrincipals()).isZero();
  }

  @Test
  void thePerPrincipalLimitRefusesOnlyThatPrincipal() {
    SessionTable table = table(10, 2, false);
    create(table, ALICE);
    create(table, ALICE);

    Optional<RealServerSession> aliceAgain = table.create(ALICE, LoggingLevel.INFO);
    Optional<RealServerSession> bob = table.create(BOB, LoggingLevel.INFO);

    assertThat(aliceAgain).isEmpty();
    assertThat(bob).isPresent();
    assertThat(counters.refusedSessions()).isEqualTo(1);
    assertThat(table.size()).isEqualTo(3);
  }

  @Test
  void closingASessionFreesItsSlotAndForgetsItsOwnerBinding() {
    SessionTable table = table(1, 1, false);
    RealServerSession session = create(table, ALICE);
    assertThat(table.owners().ownedBy(session.id(), ALICE.fingerprint())).isTrue();
    assertThat(table.create(ALICE, LoggingLevel.INFO)).isEmpty();

    session.close();

    assertThat(table.get(session.id())).isEmpty();
    assertThat(table.owners().ownedBy(session.id(), ALICE.fingerprint())).isFalse();
    assertThat(table.owners().size()).isZero();
    assertThat(table.size()).isZero();
    assertThat(table.create(ALICE, LoggingLevel.INFO)).isPresent();
  }

  @Test
  void closingFreesThePrincipalsSlotToo() {
    SessionTable table = table(10, 1, false);
    RealServerSession session = create(table, ALICE);

    session.close();
    session.close();

    Optional<RealServerSession> next = table.create(ALICE, LoggingLevel.INFO);
    Optional<RealServerSession> beyond = table.create(ALICE, LoggingLevel.INFO);
    assertThat(next).isPresent();
    assertThat(beyond).as("closing twice frees one slot").isEmpty();
  }

  @Test
  void theCloseHookRunsOnceWhileTheSessionIsStillInTheTable() {
    List<Boolean> presentDuringHook = new ArrayList<>();
    SessionTable[] holder = new SessionTable[1];
    SessionTable table = new SessionTable(new SessionTable.Limits(10, 10, IDLE),
        new SessionOwnerRegistry(100, false), counters,
        s -> presentDuringHook.add(holder[0].get(s.id()).isPresent()));
    holder[0] = table;
    RealServerSession session = create(table, ALICE);

    session.close();
    session.close();

    assertThat(presentDuringHook).containsExactly(true);
    assertThat(table.get(session.id())).isEmpty();
  }

  @Test
  void anotherPrincipalsSessionIsEmptyExactlyLikeAnUnknownId() {
    SessionTable table = table(10, 10, false);
    RealServerSession session = create(table, ALICE);

    Optional<RealServerSession> foreign = table.owned(session.id(), BOB);
    Optional<RealServerSession> unknown = table.owned("no-such-session", ALICE);
    Optional<RealServerSession> none = table.owned(null, ALICE);

    assertThat(foreign).isEmpty();
    assertThat(unknown).isEmpty();
    assertThat(none).isEmpty();
    assertThat(foreign).isEqualTo(unknown);
    assertThat(table.owned(session.id(), ALICE)).containsSame(session);
    assertThat(table.owned(session.id(), new Principal("alice-again", ALICE.fingerprint())))
        .as("ownership is by fingerprint").containsSame(session);
  }

  @Test
  void evictIdleClosesSessionsIdlePastTheTimeoutAndCountsThem() {
    SessionTable table = table(10, 10, false);
    RealServerSession a = create(table, ALICE);
    RealServerSession b = create(table, BOB);

    int early = table.evictIdle(System.nanoTime());
    int late = table.evictIdle(System.nanoTime() + LATER);

    assertThat(early).isZero();
    assertThat(late).isEqualTo(2);
    assertThat(counters.evictions()).isEqualTo(2);
    assertThat(a.isClosed()).isTrue();
    assertThat(b.isClosed()).isTrue();
    assertThat(table.size()).isZero();
    assertThat(table.owners().size()).isZero();
    assertThat(closed).containsExactlyInAnyOrder(a, b);
  }

  @Test
  void evictIdleNeverEvictsASessionWithARunningRequest() {
    SessionTable table = table(10, 10, false);
    RealServerSession busy = create(table, ALICE);
    RealServerSession idle = create(table, ALICE);
    busy.requestStarted();

    int evicted = table.evictIdle(System.nanoTime() + LATER);

    assertThat(evicted).isEqualTo(1);
    assertThat(busy.isClosed()).isFalse();
    assertThat(idle.isClosed()).isTrue();
    assertThat(table.get(busy.id())).containsSame(busy);
    assertThat(counters.evictions()).isEqualTo(1);

    busy.requestEnded();
    assertThat(table.evictIdle(System.nanoTime() + LATER)).isEqualTo(1);
    assertThat(busy.isClosed()).isTrue();
    assertThat(counters.evictions()).isEqualTo(2);
  }

  @Test
  void evictIdleNeverEvictsASessionWaitingOnItsClient() {
    SessionTable table = table(10, 10, false);
    RealServerSession waiting = create(table, ALICE);
    OutboundRequests.Pending elicitation = waiting.pending().start();

    int evicted = table.evictIdle(System.nanoTime() + LATER);

    assertThat(evicted).isZero();
    assertThat(waiting.isClosed()).isFalse();
    assertThat(counters.evictions()).isZero();

    elicitation.abandon();
    assertThat(table.evictIdle(System.nanoTime() + LATER)).isEqualTo(1);
    assertThat(waiting.isClosed()).isTrue();
  }

  @Test
  void inv2_sessionIdsAreDistinct43CharacterBase64UrlOf256RandomBits() {
    SessionTable table = table(10_000, 10_000, false);
    Set<String> ids = new HashSet<>();
    List<String> malformed = new ArrayList<>();

    for (int i = 0; i < 5_000; i++) {
      String id = create(table, ALICE).id();
      ids.add(id);
      if (!id.matches("[A-Za-z0-9_-]{43}")) {
        malformed.add(id);
      }
    }

    assertThat(malformed).isEmpty();
    assertThat(ids).hasSize(5_000);
    assertThat(Base64.getUrlDecoder().decode(ids.iterator().next())).hasSize(32);
  }

  @Test
  void inv2_aCallerChosenIdIsNeverAcceptedWhileChannelsAreOff() {
    SessionTable table = table(10, 10, false);

    Optional<RealServerSession> chosen = table.attachChannel(CHANNEL, ALICE, LoggingLevel.INFO);

    assertThat(chosen).isEmpty();
    assertThat(table.get(CHANNEL)).isEmpty();
    assertThat(table.size()).isZero();
    assertThat(table.owners().size()).isZero();
    assertThat(create(table, ALICE).id()).isNotEqualTo(CHANNEL);
  }

  @Test
  void aChannelIsClaimedByItsFirstPrincipalAndReturnedOnlyToIt() {
    SessionTable table = table(10, 10, true);

    Optional<RealServerSession> claimed = table.attachChannel(CHANNEL, ALICE, LoggingLevel.INFO);
    Optional<RealServerSession> again = table.attachChannel(CHANNEL, ALICE, LoggingLevel.INFO);
    Optional<RealServerSession> stolen = table.attachChannel(CHANNEL, BOB, LoggingLevel.INFO);
    Optional<RealServerSession> lowEntropy =
        table.attachChannel("short-id", ALICE, LoggingLevel.INFO);

    assertThat(claimed).isPresent();
    assertThat(claimed.get().isChannel()).isTrue();
    assertThat(claimed.get().id()).isEqualTo(CHANNEL);
    assertThat(again).containsSame(claimed.get());
    assertThat(stolen).isEmpty();
    assertThat(lowEntropy).isEmpty();
    assertThat(table.size()).isEqualTo(1);
  }

  @Test
  void aChannelRefusedForLackOfRoomLeavesNoClaimBehind() {
    SessionTable table = table(1, 1, true);
    create(table, ALICE);

    Optional<RealServerSession> refused = table.attachChannel(CHANNEL, BOB, LoggingLevel.INFO);

    assertThat(refused).isEmpty();
    assertThat(table.owners().ownedBy(CHANNEL, BOB.fingerprint())).isFalse();
    assertThat(counters.refusedSessions()).isEqualTo(1);
  }

  @Test
  void aServerSessionIdCannotBeReopenedAsAChannel() {
    SessionTable table = table(10, 10, true);
    RealServerSession session = create(table, ALICE);

    Optional<RealServerSession> byOwner =
        table.attachChannel(session.id(), ALICE, LoggingLevel.INFO);
    Optional<RealServerSession> byOther =
        table.attachChannel(session.id(), BOB, LoggingLevel.INFO);

    assertThat(byOwner).isEmpty();
    assertThat(byOther).isEmpty();
    assertThat(table.owners().ownedBy(session.id(), ALICE.fingerprint())).isTrue();
  }

  @Test
  void inv46_subscribeOnAClosedSessionReturnsFalseAndLeavesNoSubscription() {
    SessionTable table = table(10, 10, false);
    RealServerSession session = create(table, ALICE);
    assertThat(session.subscribe("file:///a")).isTrue();

    session.close();
    boolean late = session.subscribe("file:///b");

    assertThat(late).isFalse();
    assertThat(session.subscribed("file:///a")).isFalse();
    assertThat(session.subscribed("file:///b")).isFalse();
  }

  @Test
  void inv46_aSubscribeRacingCloseNeverSurvivesTheClose() throws Exception {
    SessionTable table = table(10, 10, false);
    int survived = 0;
    int subscribedFirst = 0;

    for (int i = 0; i < 2_000; i++) {
      RealServerSession session = create(table, ALICE);
      String uri = "file:///race/" + i;
      CountDownLatch go = new CountDownLatch(1);
      Future<Boolean> subscriber = executor.submit(() -> {
        go.await();
        return session.subscribe(uri);
      });
      Future<?> closer = executor.submit(() -> {
        go.await();
        session.close();
        return null;
      });
      go.countDown();
      boolean subscribed = subscriber.get(2, TimeUnit.SECONDS);
      closer.get(2, TimeUnit.SECONDS);

      if (subscribed) {
        subscribedFirst++;
      }
      if (session.subscribed(uri)) {
        survived++;
      }
    }

    assertThat(survived).isZero();
    assertThat(table.size()).isZero();
    assertThat(subscribedFirst).isBetween(0, 2_000);
  }

  /**
   * Makes the race of {@link #inv46_aSubscribeRacingCloseNeverSurvivesTheClose} deterministic:
   * the test holds the lock the session's subscriptions are guarded by (white-box: the private
   * {@code subscriptions} set), lets a subscriber block on it, then tears the session down while
   * still holding it (the lock is reentrant). A subscribe that checked "closed" before taking
   * the lock would add its subscription once the lock is released.
   */
  @Test
  void inv46_aSubscribeCaughtBehindTheTeardownNeverSurvivesIt() throws Exception {
    SessionTable table = table(10, 10, false);
    Field field = RealServerSession.class.getDeclaredField("subscriptions");
    field.setAccessible(true);

    for (int i = 0; i < 20; i++) {
      RealServerSession session = create(table, ALICE);
      Object guard = field.get(session);
      String uri = "file:///blocked/" + i;
      Future<Boolean> subscriber;
      synchronized (guard) {
        AtomicReference<Thread> thread = new AtomicReference<>();
        subscriber = executor.submit(() -> {
          thread.set(Thread.currentThread());
          return session.subscribe(uri);
        });
        await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(1))
            .until(() -> thread.get() != null
                && thread.get().getState() == Thread.State.BLOCKED);
        session.close();
      }

      assertThat(subscriber.get(2, TimeUnit.SECONDS)).isFalse();
      assertThat(session.subscribed(uri)).isFalse();
    }
  }

  @Test
  void closingOneOfTwoSessionsFreesExactlyOneOfThePrincipalsSlots() {
    SessionTable table = table(10, 2, false);
    RealServerSession first = create(table, ALICE);
    create(table, ALICE);
    first.close();
    assertThat(table.create(ALICE, LoggingLevel.INFO)).isPresent();
    assertThat(table.create(ALICE, LoggingLevel.INFO)).as("two open again").isEmpty();
  }
}
