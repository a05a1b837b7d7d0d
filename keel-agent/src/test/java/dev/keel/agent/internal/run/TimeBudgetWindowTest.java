package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The budget's sliding minute, on a clock the test moves. */
class TimeBudgetWindowTest {

  final AtomicLong now = new AtomicLong(1_000_000_000_000L);
  final TimeBudget budget = new TimeBudget(Duration.ofSeconds(10), now::get);

  void spend(String who, Duration d) {
    try (TimeBudget.Grant g = budget.reserve(who, Duration.ofSeconds(30))) {
      now.addAndGet(d.toNanos());
    }
  }

  @Test
  void aStatementGetsAtMostWhatIsLeft() {
    spend("a", Duration.ofSeconds(7));
    try (TimeBudget.Grant g = budget.reserve("a", Duration.ofSeconds(30))) {
      assertThat(g.timeout()).isEqualTo(Duration.ofSeconds(3));
      assertThat(g.limitedByBudget()).isTrue();
    }
    try (TimeBudget.Grant g = budget.reserve("b", Duration.ofSeconds(5))) {
      assertThat(g.timeout()).isEqualTo(Duration.ofSeconds(5));
      assertThat(g.limitedByBudget()).isFalse();
    }
  }

  @Test
  void runningStatementsShareWhatIsLeft() {
    TimeBudget.Grant first = budget.reserve("a", Duration.ofSeconds(6));
    TimeBudget.Grant second = budget.reserve("a", Duration.ofSeconds(6));
    assertThat(second.timeout()).isEqualTo(Duration.ofSeconds(4));
    assertThatThrownBy(() -> budget.reserve("a", Duration.ofSeconds(1)))
        .hasMessageContaining("when one of your running statements has finished");
    first.close();
    second.close();
  }

  @Test
  void spentTimeCountsForOneMinuteThenFreesUp() {
    spend("a", Duration.ofSeconds(4));
    now.addAndGet(Duration.ofSeconds(20).toNanos());
    spend("a", Duration.ofSeconds(6));
    assertThatThrownBy(() -> budget.reserve("a", Duration.ofSeconds(1)))
        .isInstanceOf(QueryFailedException.class)
        .hasMessage("You have used your statement time (10 s per minute); try again in 34 "
            + "seconds");
    now.addAndGet(Duration.ofSeconds(35).toNanos());
    try (TimeBudget.Grant g = budget.reserve("a", Duration.ofSeconds(30))) {
      assertThat(g.timeout()).isEqualTo(Duration.ofSeconds(4));
    }
  }
}
