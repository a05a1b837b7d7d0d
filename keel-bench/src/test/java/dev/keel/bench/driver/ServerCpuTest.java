package dev.keel.bench.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/** The server CPU clock the driver reports per call. */
class ServerCpuTest {

  @Test
  void utimeAndStimeAreFoundAfterACommandNameThatHoldsSpacesAndParentheses() {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    String line = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 9 0 0 0 250 17 3 1 20 0 40";
    assertThat(ServerCpu.parse(line)).isEqualTo((250 + 17) * 10_000_000L);
  }

  @Test
  void theClockOfThisProcessAdvancesByTheCpuItBurns() {
    ServerCpu cpu = new ServerCpu(ProcessHandle.current().pid());
    long before = cpu.nanos();
    long threadCpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
    long sink = 0;
    while (ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() - threadCpu
        < 300_000_000L) {
      sink += Long.numberOfTrailingZeros(sink + System.nanoTime());
    }
    long after = cpu.nanos();
    assertThat(before).as("sink %d", sink).isPositive();
    // 300 ms of this thread alone, read in 10 ms ticks
    assertThat(after - before).isGreaterThanOrEqualTo(280_000_000L);
  }

  @Test
  void aProcessThatIsNotThereReadsAsUnknown() {
    assertThat(new ServerCpu(Integer.MAX_VALUE).nanos()).isEqualTo(-1);
    assertThat(ServerCpu.UNKNOWN.nanos()).isEqualTo(-1);
  }
}
