package dev.keel.agent;

import java.time.Duration;
import java.util.Objects;

/**
 * The bounds every query of the database agent runs within.
 *
 * <pre>{@code
 * AgentLimits limits = AgentLimits.defaults().withMaxRows(100)
 *     .withStatementTimeout(Duration.ofSeconds(5));
 * }</pre>
 *
 * @param maxRows the most rows one result carries; past it the result is cut and says so
 * @param maxResultBytes the most bytes of JSON one result carries; past it the result is cut and
 *     says so
 * @param maxCellChars the most characters one text or binary value keeps; longer values are cut
 *     with a marker
 * @param statementTimeout how long one statement may run before it is cancelled
 * @param maxConcurrentQueries how many statements one principal may run at once; past it a call
 *     is refused, not queued
 * @param poolSize the most database connections the agent holds
 * @param maxRowsPerUpdate the most rows one approved update may change
 * @param cost the time budget per principal and the plan estimate limits
 */
public record AgentLimits(int maxRows, long maxResultBytes, int maxCellChars,
    Duration statementTimeout, int maxConcurrentQueries, int poolSize, int maxRowsPerUpdate,
    CostLimits cost) {

  /** The limits with the default {@link CostLimits}. */
  public AgentLimits(int maxRows, long maxResultBytes, int maxCellChars,
      Duration statementTimeout, int maxConcurrentQueries, int poolSize, int maxRowsPerUpdate) {
    this(maxRows, maxResultBytes, maxCellChars, statementTimeout, maxConcurrentQueries,
        poolSize, maxRowsPerUpdate, CostLimits.defaults());
  }

  /** Checks that every bound is positive. */
  public AgentLimits {
    positive(maxRows, "maxRows");
    if (maxResultBytes < 1024) {
      throw new IllegalArgumentException("maxResultBytes must be at least 1024: " + maxResultBytes);
    }
    positive(maxCellChars, "maxCellChars");
    Objects.requireNonNull(statementTimeout, "statementTimeout");
    if (statementTimeout.isNegative() || statementTimeout.isZero()) {
      throw new IllegalArgumentException("statementTimeout must be positive: " + statementTimeout);
    }
    positive(maxConcurrentQueries, "maxConcurrentQueries");
    positive(poolSize, "poolSize");
    positive(maxRowsPerUpdate, "maxRowsPerUpdate");
    Objects.requireNonNull(cost, "cost");
  }

  /**
   * Returns the defaults: 500 rows, 256 KiB, 4,096 characters per value, 30 s per statement,
   * 4 statements at once per principal, 8 connections, 100 rows per update.
   */
  public static AgentLimits defaults() {
    return new AgentLimits(500, 256 * 1024, 4096, Duration.ofSeconds(30), 4, 8, 100);
  }

  /** Returns a copy with another row limit. */
  public AgentLimits withMaxRows(int value) {
    return new AgentLimits(value, maxResultBytes, maxCellChars, statementTimeout,
        maxConcurrentQueries, poolSize, maxRowsPerUpdate, cost);
  }

  /** Returns a copy with another byte limit. */
  public AgentLimits withMaxResultBytes(long value) {
    return new AgentLimits(maxRows, value, maxCellChars, statementTimeout, maxConcurrentQueries,
        poolSize, maxRowsPerUpdate, cost);
  }

  /** Returns a copy with another limit on one value's length. */
  public AgentLimits withMaxCellChars(int value) {
    return new AgentLimits(maxRows, maxResultBytes, value, statementTimeout,
        maxConcurrentQueries, poolSize, maxRowsPerUpdate, cost);
  }

  /** Returns a copy with another statement timeout. */
  public AgentLimits withStatementTimeout(Duration value) {
    return new AgentLimits(maxRows, maxResultBytes, maxCellChars, value, maxConcurrentQueries,
        poolSize, maxRowsPerUpdate, cost);
  }

  /** Returns a copy with another number of concurrent statements per principal. */
  public AgentLimits withMaxConcurrentQueries(int value) {
    return new AgentLimits(maxRows, maxResultBytes, maxCellChars, statementTimeout, value,
        poolSize, maxRowsPerUpdate, cost);
  }

  /** Returns a copy with another pool size. */
  public AgentLimits withPoolSize(int value) {
    return new AgentLimits(maxRows, maxResultBytes, maxCellChars, statementTimeout,
        maxConcurrentQueries, value, maxRowsPerUpdate, cost);
  }

  /** Returns a copy with another limit on the rows one update may change. */
  public AgentLimits withMaxRowsPerUpdate(int value) {
    return new AgentLimits(maxRows, maxResultBytes, maxCellChars, statementTimeout,
        maxConcurrentQueries, poolSize, value, cost);
  }

  // ---- cost limits (time budget, plan estimates): begin ----

  /** Returns a copy where one principal may use {@code value} of statement time per minute. */
  public AgentLimits withTimeBudgetPerMinute(Duration value) {
    return withCost(new CostLimits(value, cost.maxEstimatedRows(), cost.maxEstimatedCost(),
        cost.queriesPerMinute(), cost.rowsPerMinute()));
  }

  /** Returns a copy that refuses queries the planner estimates to return more rows. */
  public AgentLimits withMaxEstimatedRows(long value) {
    return withCost(new CostLimits(cost.timeBudgetPerMinute(), value, cost.maxEstimatedCost(),
        cost.queriesPerMinute(), cost.rowsPerMinute()));
  }

  /** Returns a copy that refuses queries the planner estimates to cost more. */
  public AgentLimits withMaxEstimatedCost(double value) {
    return withCost(new CostLimits(cost.timeBudgetPerMinute(), cost.maxEstimatedRows(), value,
        cost.queriesPerMinute(), cost.rowsPerMinute()));
  }

  /** Returns a copy where one principal may start {@code value} statements a minute (0: any). */
  public AgentLimits withQueriesPerMinute(int value) {
    return withCost(new CostLimits(cost.timeBudgetPerMinute(), cost.maxEstimatedRows(),
        cost.maxEstimatedCost(), value, cost.rowsPerMinute()));
  }

  /** Returns a copy where one principal's results may carry {@code value} rows a minute (0: any). */
  public AgentLimits withRowsPerMinute(long value) {
    return withCost(new CostLimits(cost.timeBudgetPerMinute(), cost.maxEstimatedRows(),
        cost.maxEstimatedCost(), cost.queriesPerMinute(), value));
  }

  /** Returns a copy with other cost limits. */
  public AgentLimits withCost(CostLimits value) {
    return new AgentLimits(maxRows, maxResultBytes, maxCellChars, statementTimeout,
        maxConcurrentQueries, poolSize, maxRowsPerUpdate, value);
  }

  // ---- cost limits: end ----

  private static void positive(int value, String name) {
    if (value <= 0) {
      throw new IllegalArgumentException(name + " must be positive: " + value);
    }
  }
}
