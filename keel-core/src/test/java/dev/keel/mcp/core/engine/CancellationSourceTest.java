package dev.keel.mcp.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.RequestCancelledException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CancellationSourceTest {

  @AfterEach
  void clearInterruptOfTheTestThread() {
    Thread.interrupted();
  }

  @Test
  void newSourceIsNotCancelledAndHasNoReason() {
    CancellationSource source = new CancellationSource();

    assertThat(source.isCancelled()).isFalse();
    assertThat(source.reason()).isNull();
    source.throwIfCancelled();
  }

  @Test
  void inv21_cancelTakesEffectOnceAndKeepsFirstReason() {
    CancellationSource source = new CancellationSource();

    boolean first = source.cancel("client asked");
    boolean second = source.cancel("timeout");

    assertThat(first).isTrue();
    assertThat(second).isFalse();
    assertThat(source.isCancelled()).isTrue();
    assertThat(source.reason()).isEqualTo("client asked");
  }

  @Test
  void cancelWithNullReasonRecordsADefaultReason() {
    CancellationSource source = new CancellationSource();

    source.cancel(null);

    assertThat(source.isCancelled()).isTrue();
    assertThat(source.reason()).isEqualTo("cancelled");
  }

  @Test
  void throwIfCancelledThrowsWithTheReasonOnceCancelled() {
    CancellationSource source = new CancellationSource(false);
    source.cancel("stop now");

    assertThatThrownBy(source::throwIfCancelled)
        .isInstanceOf(RequestCancelledException.class)
        .hasMessage("cancelled: stop now");
  }

  @Test
  void onCancelActionRunsExactlyOnceAcrossRepeatedCancels() {
    CancellationSource source = new CancellationSource();
    AtomicInteger runs = new AtomicInteger();
    source.onCancel(runs::incrementAndGet);

    source.cancel("a");
    source.cancel("b");

    assertThat(runs).hasValue(1);
  }

  @Test
  void onCancelActionsRunInRegistrationOrder() {
    CancellationSource source = new CancellationSource();
    List<String> order = new ArrayList<>();
    source.onCancel(() -> order.add("first"));
    source.onCancel(() -> order.add("second"));

    source.cancel("x");

    assertThat(order).containsExactly("first", "second");
  }

  @Test
  void onCancelRunsImmediatelyOnTheCallingThreadWhenAlreadyCancelled() throws Exception {
    CancellationSource source = new CancellationSource();
    source.cancel("done");
    AtomicReference<Thread> ranOn = new AtomicReference<>();

    CancellationToken.Registration handle =
        source.onCancel(() -> ranOn.set(Thread.currentThread()));

    assertThat(ranOn.get()).isSameAs(Thread.currentThread());
    handle.close();
  }

  @Test
  void closingTheOnCancelHandleRemovesTheAction() throws Exception {
    CancellationSource source = new CancellationSource();
    AtomicInteger removed = new AtomicInteger();
    AtomicInteger kept = new AtomicInteger();
    CancellationToken.Registration handle = source.onCancel(removed::incrementAndGet);
    source.onCancel(kept::incrementAndGet);

    handle.close();
    source.cancel("x");

    assertThat(removed).hasValue(0);
    assertThat(kept).hasValue(1);
  }

  @Test
  void closingTheHandleAfterCancelIsHarmless() throws Exception {
    CancellationSource source = new CancellationSource();
    AtomicInteger runs = new AtomicInteger();
    CancellationToken.Registration handle = source.onCancel(runs::incrementAndGet);
    source.cancel("x");

    handle.close();

    assertThat(runs).hasValue(1);
  }

  @Test
  void aThrowingActionDoesNotStopTheOthers() {
    CancellationSource source = new CancellationSource();
    AtomicBoolean later = new AtomicBoolean();
    source.onCancel(() -> {
      throw new IllegalStateException("boom");
    });
    source.onCancel(() -> later.set(true));

    boolean cancelled = source.cancel("x");

    assertThat(cancelled).isTrue();
    assertThat(later).isTrue();
  }

  @Test
  void cancelInterruptsTheBoundThreadBlockedInSleep() throws Exception {
    CancellationSource source = new CancellationSource();
    CountDownLatch bound = new CountDownLatch(1);
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    AtomicBoolean interruptedAfterUnbind = new AtomicBoolean(true);
    Thread worker = new Thread(() -> {
      source.bindThread();
      try {
        bound.countDown();
        Thread.sleep(30_000);
      } catch (InterruptedException e) {
        sawInterrupt.set(true);
      } finally {
        source.unbindThread();
        interruptedAfterUnbind.set(Thread.currentThread().isInterrupted());
      }
    });
    worker.start();
    assertThat(bound.await(5, TimeUnit.SECONDS)).isTrue();

    source.cancel("client");
    worker.join(5_000);

    assertThat(worker.isAlive()).isFalse();
    assertThat(sawInterrupt).isTrue();
    assertThat(interruptedAfterUnbind).isFalse();
  }

  @Test
  void bindingAnAlreadyCancelledSourceInterruptsAtOnce() {
    CancellationSource source = new CancellationSource();
    source.cancel("early");

    source.bindThread();

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    source.unbindThread();
    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void unbindThreadClearsAPendingInterruptLeftByCancel() {
    CancellationSource source = new CancellationSource();
    source.bindThread();
    source.cancel("x");
    assertThat(Thread.currentThread().isInterrupted()).isTrue();

    source.unbindThread();

    assertThat(Thread.currentThread().isInterrupted()).isFalse();
  }

  @Test
  void lateCancelAfterUnbindNeverInterruptsTheThread() throws Exception {
    CancellationSource source = new CancellationSource();
    CountDownLatch unbound = new CountDownLatch(1);
    CountDownLatch cancelled = new CountDownLatch(1);
    AtomicBoolean interruptedLater = new AtomicBoolean(true);
    AtomicBoolean sleptUndisturbed = new AtomicBoolean();
    Thread worker = new Thread(() -> {
      source.bindThread();
      source.unbindThread();
      unbound.countDown();
      try {
        if (!cancelled.await(5, TimeUnit.SECONDS)) {
          return;
        }
        interruptedLater.set(Thread.currentThread().isInterrupted());
        Thread.sleep(50);
        sleptUndisturbed.set(true);
      } catch (InterruptedException e) {
        interruptedLater.set(true);
      }
    });
    worker.start();
    assertThat(unbound.await(5, TimeUnit.SECONDS)).isTrue();

    boolean tripped = source.cancel("late");
    cancelled.countDown();
    worker.join(5_000);

    assertThat(tripped).isTrue();
    assertThat(interruptedLater).isFalse();
    assertThat(sleptUndisturbed).isTrue();
  }

  @Test
  void unbindFromAnotherThreadDoesNotUnbindTheBoundThread() throws Exception {
    CancellationSource source = new CancellationSource();
    source.bindThread();
    Thread other = new Thread(source::unbindThread);
    other.start();
    other.join(5_000);

    source.cancel("x");

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    source.unbindThread();
  }

  @Test
  void sourceWithoutInterruptsNeverInterruptsTheBoundThread() throws Exception {
    CancellationSource source = new CancellationSource(false);
    CountDownLatch bound = new CountDownLatch(1);
    AtomicBoolean sawInterrupt = new AtomicBoolean();
    AtomicBoolean sawCancel = new AtomicBoolean();
    Thread worker = new Thread(() -> {
      source.bindThread();
      try {
        bound.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!source.isCancelled() && System.nanoTime() < deadline) {
          Thread.sleep(5);
        }
        sawCancel.set(source.isCancelled());
        Thread.sleep(20);
      } catch (InterruptedException e) {
        sawInterrupt.set(true);
      } finally {
        source.unbindThread();
      }
    });
    worker.start();
    assertThat(bound.await(5, TimeUnit.SECONDS)).isTrue();

    source.cancel("x");
    worker.join(10_000);

    assertThat(sawCancel).isTrue();
    assertThat(sawInterrupt).isFalse();
  }

  @Test
  void sourceWithoutInterruptsDoesNotInterruptWhenBoundAfterCancel() {
    CancellationSource source = new CancellationSource(false);
    source.cancel("x");

    source.bindThread();

    assertThat(Thread.currentThread().isInterrupted()).isFalse();
    source.unbindThread();
  }

  @Test
  void noneTokenIsNeverCancelledAndIgnoresActions() throws Exception {
    CancellationToken none = CancellationToken.none();
    AtomicBoolean ran = new AtomicBoolean();

    none.onCancel(() -> ran.set(true)).close();

    assertThat(none.isCancelled()).isFalse();
    assertThat(none.reason()).isNull();
    assertThat(ran).isFalse();
  }

  @Test
  void closingAHandleLeavesTheSourceFreeForOtherThreads() throws Exception {
    CancellationSource source = new CancellationSource();
    source.onCancel(() -> { }).close();
    CompletableFuture<Boolean> elsewhere =
        CompletableFuture.supplyAsync(() -> source.cancel("from another thread"));
    assertThat(elsewhere.get(5, TimeUnit.SECONDS)).isTrue();
    assertThat(source.cancel("again")).isFalse();
  }
}
