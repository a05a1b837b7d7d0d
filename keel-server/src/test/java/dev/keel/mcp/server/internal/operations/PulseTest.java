package dev.keel.mcp.server.internal.operations;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.server.ServerOperations;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The operator's charts: one bucket a second over five minutes, percentiles from a log-scale
 * histogram within a bin's width, errors counted by code, old seconds forgotten.
 */
class PulseTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Pulse pulse = new Pulse(now::get);

  @Test
  void percentilesFallInTheBinOfTheRank() {
    for (int i = 1; i <= 100; i++) {
      pulse.ended(i * 1_000_000L, null); // 1..100 ms
    }
    ServerOperations.Sample s = last();
    assertThat(s.calls()).isEqualTo(100);
    // a bin is about 19% wide: the upper edge of the bin that holds the true value
    assertThat(s.p50Micros()).isBetween(50_000L, 60_000L);
    assertThat(s.p95Micros()).isBetween(95_000L, 114_000L);
    assertThat(s.p99Micros()).isBetween(99_000L, 118_000L);
  }

  @Test
  void errorsAreCountedBySecondAndByCode() {
    pulse.ended(1000, -32602);
    pulse.ended(1000, -32602);
    pulse.ended(1000, -32800);
    pulse.ended(1000, null);
    assertThat(last().errors()).isEqualTo(3);
    assertThat(pulse.errorsByCode()).containsEntry(-32602, 2L).containsEntry(-32800, 1L)
        .hasSize(2);
  }

  @Test
  void theRingKeepsFiveMinutesAndForgetsOlderSeconds() {
    pulse.ended(1000, null);
    pulse.inFlight(3);
    assertThat(last().inFlight()).isEqualTo(3);
    now.addAndGet(1000);
    List<ServerOperations.Sample> samples = pulse.samples();
    assertThat(samples).hasSize(Pulse.SECONDS);
    assertThat(samples.get(Pulse.SECONDS - 2).calls()).isEqualTo(1);
    assertThat(samples.get(Pulse.SECONDS - 1).calls()).isZero();
    // the same slot of the ring, a full turn later: the old second is gone
    now.addAndGet((Pulse.SECONDS - 1) * 1000L);
    pulse.ended(1000, null);
    pulse.ended(1000, null);
    assertThat(last().calls()).isEqualTo(2);
    assertThat(pulse.samples().stream().mapToLong(ServerOperations.Sample::calls).sum())
        .isEqualTo(2);
  }

  private ServerOperations.Sample last() {
    List<ServerOperations.Sample> samples = pulse.samples();
    return samples.get(samples.size() - 1);
  }
}
