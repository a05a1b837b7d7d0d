package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.internal.sql.QueryRefusedException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The per-principal quotas on a clock the test moves: a sliding window (a burst across a minute
 * boundary is still one burst), principals counted apart, the row quota refusing the statement
 * after the one that crossed it, and empty windows swept away.
 */
class QuotasTest {

  private static final long SECOND = 1_000_000_000L;

  private final AtomicLong now = new AtomicLong(1_000 * SECOND);

  @Test
  void theNPlusFirstStatementInAMinuteIsRefusedUntilTheOldestLeavesTheWindow() {
    Quotas quotas = new Quotas(3, 0, now::get);
    quotas.start("alice");
    now.addAndGet(50 * SECOND);
    quotas.start("alice");
    quotas.start("alice");
    // a sliding window: 11 s later the minute that began with the first statement is not over
    now.addAndGet(SECOND);
    assertThatThrownBy(() -> quotas.start("alice")).isInstanceOf(QueryRefusedException.class)
        .hasMessage("Quota reached: you may run 3 statements a minute; try again in 9 s");
    // another principal has its own window
    quotas.start("bob");
    now.addAndGet(9 * SECOND);
    quotas.start("alice");
    assertThatThrownBy(() -> quotas.start("alice")).isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void theRowQuotaRefusesTheStatementAfterTheOneThatCrossedIt() {
    Quotas quotas = new Quotas(0, 100, now::get);
    quotas.start("alice");
    quotas.rows("alice", 60);
    quotas.start("alice");
    quotas.rows("alice", 60);
    assertThatThrownBy(() -> quotas.start("alice")).isInstanceOf(QueryRefusedException.class)
        .hasMessage("Quota reached: your results may carry 100 rows a minute; try again in 60 s");
    now.addAndGet(60 * SECOND);
    quotas.start("alice");
  }

  @Test
  void emptyWindowsAreSweptAndQuotasOffCountNothing() {
    Quotas quotas = new Quotas(2, 0, now::get);
    quotas.start("alice");
    quotas.start("bob");
    assertThat(quotas.principals()).isEqualTo(2);
    now.addAndGet(61 * SECOND);
    quotas.sweep();
    assertThat(quotas.principals()).isZero();
    // and without anyone calling sweep: the next statement a minute later sweeps
    quotas.start("carol");
    now.addAndGet(61 * SECOND);
    quotas.start("dave");
    assertThat(quotas.principals()).isEqualTo(1);

    Quotas off = new Quotas(0, 0, now::get);
    for (int i = 0; i < 1_000; i++) {
      off.start("alice");
    }
    assertThat(off.enabled()).isFalse();
    assertThat(off.principals()).isZero();
  }
}
