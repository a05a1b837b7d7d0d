package dev.keel.mcp.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.jsonrpc.RequestId;
import org.junit.jupiter.api.Test;

class InboundRequestsTest {

  private final InboundRequests registry = new InboundRequests();

  private static CancellationSource source() {
    return new CancellationSource(false);
  }

  @Test
  void inv15_cancelTripsOnlyTheSameSessionAndRequest() {
    CancellationSource target = source();
    CancellationSource otherSessionSameId = source();
    CancellationSource sameSessionOtherId = source();
    registry.register("s1", RequestId.of(1), target);
    registry.register("s2", RequestId.of(1), otherSessionSameId);
    registry.register("s1", RequestId.of(2), sameSessionOtherId);

    boolean tripped = registry.cancel("s1", RequestId.of(1), "client: stop");

    assertThat(tripped).isTrue();
    assertThat(target.isCancelled()).isTrue();
    assertThat(target.reason()).isEqualTo("client: stop");
    assertThat(otherSessionSameId.isCancelled()).isFalse();
    assertThat(sameSessionOtherId.isCancelled()).isFalse();
  }

  @Test
  void inv15_stringAndNumericIdsAreDifferentRequests() {
    CancellationSource numeric = source();
    registry.register("s1", RequestId.of(7), numeric);

    boolean tripped = registry.cancel("s1", RequestId.of("7"), "x");

    assertThat(tripped).isFalse();
    assertThat(numeric.isCancelled()).isFalse();
  }

  @Test
  void inv16_wrongSessionOrUnknownIdChangesNothing() {
    CancellationSource source = source();
    registry.register("s1", RequestId.of("req"), source);

    boolean wrongSession = registry.cancel("s2", RequestId.of("req"), "x");
    boolean unknownId = registry.cancel("s1", RequestId.of("other"), "x");
    boolean nullId = registry.cancel("s1", null, "x");

    assertThat(wrongSession).isFalse();
    assertThat(unknownId).isFalse();
    assertThat(nullId).isFalse();
    assertThat(source.isCancelled()).isFalse();
    assertThat(registry.size()).isEqualTo(1);
  }

  @Test
  void inv16_cancelAfterDeregisterChangesNothing() {
    CancellationSource source = source();
    long entry = registry.register("s1", RequestId.of(3), source);
    registry.deregister("s1", RequestId.of(3), entry);

    boolean tripped = registry.cancel("s1", RequestId.of(3), "late");

    assertThat(tripped).isFalse();
    assertThat(source.isCancelled()).isFalse();
    assertThat(registry.size()).isZero();
  }

  @Test
  void secondCancelOfTheSameRequestReportsFalseAndKeepsTheFirstReason() {
    CancellationSource source = source();
    registry.register("s1", RequestId.of(1), source);

    boolean first = registry.cancel("s1", RequestId.of(1), "first");
    boolean second = registry.cancel("s1", RequestId.of(1), "second");

    assertThat(first).isTrue();
    assertThat(second).isFalse();
    assertThat(source.reason()).isEqualTo("first");
  }

  @Test
  void inv18_staleDeregisterCannotEvictNewerRegistration() {
    CancellationSource older = source();
    CancellationSource newer = source();
    long olderEntry = registry.register("s1", RequestId.of(5), older);
    long newerEntry = registry.register("s1", RequestId.of(5), newer);

    boolean staleRemoved = registry.deregister("s1", RequestId.of(5), olderEntry);
    boolean tripped = registry.cancel("s1", RequestId.of(5), "x");

    assertThat(newerEntry).isNotEqualTo(olderEntry);
    assertThat(staleRemoved).isFalse();
    assertThat(tripped).isTrue();
    assertThat(newer.isCancelled()).isTrue();
    assertThat(older.isCancelled()).isFalse();
    assertThat(registry.deregister("s1", RequestId.of(5), newerEntry)).isTrue();
    assertThat(registry.size()).isZero();
  }

  @Test
  void deregisterTwiceRemovesOnlyOnce() {
    long entry = registry.register("s1", RequestId.of(1), source());

    assertThat(registry.deregister("s1", RequestId.of(1), entry)).isTrue();
    assertThat(registry.deregister("s1", RequestId.of(1), entry)).isFalse();
  }

  @Test
  void deregisterUnderAnotherSessionRemovesNothing() {
    long entry = registry.register("s1", RequestId.of(1), source());

    assertThat(registry.deregister("s2", RequestId.of(1), entry)).isFalse();
    assertThat(registry.size()).isEqualTo(1);
  }

  @Test
  void inv19_requestWithoutSessionIsNotRegistered() {
    assertThatThrownBy(() -> registry.register(null, RequestId.of(1), source()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.register("", RequestId.of(1), source()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> registry.register("  ", RequestId.of(1), source()))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(registry.size()).isZero();
    assertThat(registry.cancel(null, RequestId.of(1), "x")).isFalse();
    assertThat(registry.cancel(" ", RequestId.of(1), "x")).isFalse();
  }

  @Test
  void cancelAllForTripsOnlyThatSessionsTokens() {
    CancellationSource a1 = source();
    CancellationSource a2 = source();
    CancellationSource b1 = source();
    registry.register("a", RequestId.of(1), a1);
    registry.register("a", RequestId.of("two"), a2);
    registry.register("b", RequestId.of(1), b1);

    int count = registry.cancelAllFor("a", "session ended");

    assertThat(count).isEqualTo(2);
    assertThat(a1.reason()).isEqualTo("session ended");
    assertThat(a2.reason()).isEqualTo("session ended");
    assertThat(b1.isCancelled()).isFalse();
  }

  @Test
  void cancelAllForCountsOnlyTokensItTripped() {
    CancellationSource already = source();
    CancellationSource fresh = source();
    registry.register("a", RequestId.of(1), already);
    registry.register("a", RequestId.of(2), fresh);
    already.cancel("before");

    int count = registry.cancelAllFor("a", "end");

    assertThat(count).isEqualTo(1);
    assertThat(already.reason()).isEqualTo("before");
    assertThat(fresh.reason()).isEqualTo("end");
  }

  @Test
  void cancelAllForAnUnknownOrNullSessionTripsNothing() {
    CancellationSource source = source();
    registry.register("a", RequestId.of(1), source);

    assertThat(registry.cancelAllFor("zzz", "x")).isZero();
    assertThat(registry.cancelAllFor(null, "x")).isZero();
    assertThat(source.isCancelled()).isFalse();
  }

  @Test
  void cancelAllTripsEveryTokenOnceAndCountsOnlyThoseItTripped() {
    CancellationSource a = source();
    CancellationSource b = source();
    CancellationSource already = source();
    already.cancel("earlier");
    registry.register("s1", RequestId.of(1), a);
    registry.register("s2", RequestId.of(1), b);
    registry.register("s2", RequestId.of(2), already);

    assertThat(registry.cancelAll("shutting down")).isEqualTo(2);
    assertThat(a.reason()).isEqualTo("shutting down");
    assertThat(b.reason()).isEqualTo("shutting down");
    assertThat(already.reason()).isEqualTo("earlier");
    assertThat(registry.cancelAll("again")).isZero();
  }
}
