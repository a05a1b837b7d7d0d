package dev.keel.agent;

import java.time.Duration;
import java.util.Objects;

/**
 * What the agent lets one principal spend, beyond one statement's bounds: statement time per
 * minute, and (PostgreSQL) how large the planner may estimate a statement before it is refused
 * without running. Part of {@link AgentLimits}; set through its {@code with...} methods.
 *
 * @param timeBudgetPerMinute the statement time one principal may use within any minute
 * @param maxEstimatedRows the most rows the planner may estimate a query returns, or
 *     {@link Long#MAX_VALUE} for no limit
 * @param maxEstimatedCost the highest total cost the planner may estimate for a query, or
 *     {@link Double#POSITIVE_INFINITY} for no limit
 * @param queriesPerMinute the most statements one principal may start within any minute, or 0
 *     for no limit
 * @param rowsPerMinute the most rows one principal's results may carry within any minute, or 0
 *     for no limit
 */
public record CostLimits(Duration timeBudgetPerMinute, long maxEstimatedRows,
    double maxEstimatedCost, int queriesPerMinute, long rowsPerMinute) {

  /** Cost limits without quotas. */
  public CostLimits(Duration timeBudgetPerMinute, long maxEstimatedRows,
      double maxEstimatedCost) {
    this(timeBudgetPerMinute, maxEstimatedRows, maxEstimatedCost, 0, 0);
  }

  /** Checks that every bound is positive. */
  public CostLimits {
    Objects.requireNonNull(timeBudgetPerMinute, "timeBudgetPerMinute");
    if (timeBudgetPerMinute.isNegative() || timeBudgetPerMinute.isZero()) {
      throw new IllegalArgumentException("timeBudgetPerMinute must be positive: "
          + timeBudgetPerMinute);
    }
    if (maxEstimatedRows <= 0) {
      throw new IllegalArgumentException("maxEstimatedRows must be positive: "
          + maxEstimatedRows);
    }
    if (!(maxEstimatedCost > 0)) {
      throw new IllegalArgumentException("maxEstimatedCost must be positive: "
          + maxEstimatedCost);
    }
    if (queriesPerMinute < 0 || rowsPerMinute < 0) {
      throw new IllegalArgumentException("quotas are 0 (none) or positive: " + queriesPerMinute
          + " statements, " + rowsPerMinute + " rows a minute");
    }
  }

  /**
   * Returns the defaults: 5 minutes of statement time per minute, no estimate limits, no
   * quotas.
   */
  public static CostLimits defaults() {
    return new CostLimits(Duration.ofMinutes(5), Long.MAX_VALUE, Double.POSITIVE_INFINITY);
  }

  /** Returns true when a plan estimate is to be asked for before a query runs. */
  public boolean estimates() {
    return maxEstimatedRows != Long.MAX_VALUE || maxEstimatedCost != Double.POSITIVE_INFINITY;
  }
}
