package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Whom the memory guard stops. Found in CI on JDK 25: statements ran on virtual threads, whose
 * allocation the JVM does not count, so the guard could not tell a hostile sort from another
 * principal's quick count, and past the emergency mark it stopped both.
 */
class H2MemoryGuardTest {

  static final long HEAP = 128L << 20;

  record Statement(String name, boolean fired, long allocatedSince, long started)
      implements H2MemoryGuard.Candidate {}

  static Statement running(String name, long allocated, long started) {
    return new Statement(name, false, allocated, started);
  }

  @Test
  void anH2StatementRunsWhereItsAllocationIsCounted() throws Exception {
    long allocated = QueryRunner.H2_WORKERS.submit(() -> {
      try (H2MemoryGuard.Watch watch = H2MemoryGuard.watch(() -> { })) {
        byte[][] hold = new byte[64][];
        for (int i = 0; i < hold.length; i++) {
          hold[i] = new byte[64 * 1024];
        }
        return hold.length > 0 ? watch.allocatedSince() : -1;
      }
    }).get();
    assertThat(allocated).as("bytes the watched statement's thread allocated")
        .isGreaterThanOrEqualTo(64 * 64 * 1024);
  }

  @Test
  void pastTheThresholdOnlyTheHeaviestIsStopped() {
    Statement sort = running("hostile sort", 90L << 20, 1);
    Statement count = running("other's count", 1L << 20, 0);
    assertThat(H2MemoryGuard.victims(List.of(count, sort), false, HEAP)).containsExactly(sort);
  }

  @Test
  void whileOneWindsDownNoneElseIsStopped() {
    Statement stopped = new Statement("stopped recursion", true, 100L << 20, 0);
    Statement sort = running("hostile sort", 40L << 20, 1);
    assertThat(H2MemoryGuard.victims(List.of(stopped, sort), false, HEAP)).isEmpty();
  }

  @Test
  void pastTheEmergencyMarkEveryHeavyOneIsStoppedButNotAQuickOne() {
    Statement stopped = new Statement("stopped recursion", true, 100L << 20, 0);
    Statement sort = running("hostile sort", 40L << 20, 1);
    Statement count = running("other's count", 1L << 20, 2);
    assertThat(H2MemoryGuard.victims(List.of(stopped, count, sort), true, HEAP))
        .containsExactly(sort);
    // nothing heavy left: the quick one stays
    assertThat(H2MemoryGuard.victims(List.of(stopped, count), true, HEAP)).isEmpty();
  }

  @Test
  void whereTheJvmCannotTellTheOldestGoesFirst() {
    Statement first = running("first", -1, 5);
    Statement second = running("second", -1, 9);
    assertThat(H2MemoryGuard.victims(List.of(second, first), false, HEAP))
        .containsExactly(first);
  }
}
