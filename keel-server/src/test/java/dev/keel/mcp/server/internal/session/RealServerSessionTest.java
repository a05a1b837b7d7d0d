package dev.keel.mcp.server.internal.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.internal.metrics.ServerCounters;
import dev.keel.mcp.server.transport.ListenerAttachment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One legacy session on its own: its subscriptions and their bound, the one listening stream it
 * holds, and what closing it ends. The HTTP tests reach all of this through a server; mutation
 * testing found these rules unchecked in keel-server's own tests.
 */
class RealServerSessionTest {

  final ServerCounters counters = new ServerCounters(() -> 0, () -> 0);
  final List<RealServerSession> closedBy = new ArrayList<>();
  final RealServerSession session = new RealServerSession("s1", Principal.of("alice"), false,
      LoggingLevel.INFO, counters, closedBy::add);

  static final JsonRpcNotification NOTE = new JsonRpcNotification("notifications/message", null);

  @Test
  void subscriptionsAreKeptOnceAndBounded() {
    assertThat(session.subscribe("a://1")).isTrue();
    assertThat(session.subscribe("a://1")).isTrue();
    assertThat(session.subscriptionCount()).isEqualTo(1);
    assertThat(session.subscribed("a://1")).isTrue();
    assertThat(session.subscribed("a://2")).isFalse();
    for (int i = 2; i <= RealServerSession.MAX_SUBSCRIPTIONS; i++) {
      assertThat(session.subscribe("a://" + i)).isTrue();
    }
    assertThat(session.subscriptionCount()).isEqualTo(RealServerSession.MAX_SUBSCRIPTIONS);
    assertThat(session.subscribe("a://one-too-many")).isFalse();
    assertThat(session.subscribed("a://one-too-many")).isFalse();
    // one already held is still answered as held at the bound
    assertThat(session.subscribe("a://1")).isTrue();
    session.unsubscribe("a://1");
    assertThat(session.subscribe("a://now-room")).isTrue();
  }

  @Test
  void aClosedSessionDropsItsSubscriptionsAndTakesNoNewOnes() {
    session.subscribe("a://1");
    session.close();
    assertThat(session.subscribed("a://1")).isFalse();
    assertThat(session.subscribe("a://2")).isFalse();
    assertThat(session.subscriptionCount()).isZero();
  }

  @Test
  void oneListenerAtATimeAndOnlyTheCurrentOneDetaches() {
    List<JsonRpcMessage> first = new ArrayList<>();
    List<JsonRpcMessage> second = new ArrayList<>();
    assertThat(session.sendToListener(NOTE)).isFalse();
    assertThat(session.hasListener()).isFalse();
    ListenerAttachment a = session.attachListener(m -> first.add(m));
    assertThat(counters.listeningStreams()).isEqualTo(1);
    assertThat(session.hasListener()).isTrue();
    assertThat(session.sendToListener(NOTE)).isTrue();
    ListenerAttachment b = session.attachListener(m -> second.add(m));
    assertThat(counters.listeningStreams()).isEqualTo(1);
    assertThat(a.isCurrent()).isFalse();
    assertThat(b.isCurrent()).isTrue();
    a.detach();
    assertThat(session.sendToListener(NOTE)).isTrue();
    assertThat(first).hasSize(1);
    assertThat(second).hasSize(1);
    b.detach();
    b.detach();
    assertThat(counters.listeningStreams()).isZero();
    assertThat(session.hasListener()).isFalse();
    assertThat(session.sendToListener(NOTE)).isFalse();
  }

  @Test
  void aListenerThatRefusesIsReportedAsNotSent() {
    session.attachListener(m -> false);
    assertThat(session.sendToListener(NOTE)).isFalse();
  }

  @Test
  void attachingMovesTheSessionsLastActivity() throws Exception {
    long before = session.lastActivityNanos();
    Thread.sleep(5);
    session.attachListener(m -> true);
    assertThat(session.lastActivityNanos()).isGreaterThan(before);
    long attached = session.lastActivityNanos();
    Thread.sleep(5);
    session.requestStarted();
    assertThat(session.lastActivityNanos()).isGreaterThan(attached);
    assertThat(session.requestsRunning()).isEqualTo(1);
    long started = session.lastActivityNanos();
    Thread.sleep(5);
    session.requestEnded();
    assertThat(session.lastActivityNanos()).isGreaterThan(started);
    assertThat(session.requestsRunning()).isZero();
    assertThat(session.createdNanos()).isLessThanOrEqualTo(before);
  }

  @Test
  void closingEndsTheListenerTheWaitsAndRunsEveryHookOnce() {
    AtomicInteger hooks = new AtomicInteger();
    session.attachListener(m -> true);
    session.onClose(hooks::incrementAndGet);
    session.onClose(() -> {
      throw new IllegalStateException("a broken hook");
    });
    session.onClose(hooks::incrementAndGet);
    var waiting = session.pending().start();

    session.close();
    session.close();

    assertThat(session.isClosed()).isTrue();
    assertThat(closedBy).containsExactly(session);
    assertThat(hooks).hasValue(2);
    assertThat(counters.listeningStreams()).isZero();
    assertThat(session.sendToListener(NOTE)).isFalse();
    assertThatThrownBy(() -> waiting.await("roots/list", Duration.ofSeconds(5),
        CancellationToken.none())).isInstanceOf(ConnectionClosedException.class);
    // a hook added after the close runs at once
    session.onClose(hooks::incrementAndGet);
    assertThat(hooks).hasValue(3);
    // a listener attached after the close is never the session's
    ListenerAttachment late = session.attachListener(m -> true);
    assertThat(late.isCurrent()).isFalse();
    assertThat(counters.listeningStreams()).isZero();
  }
}
