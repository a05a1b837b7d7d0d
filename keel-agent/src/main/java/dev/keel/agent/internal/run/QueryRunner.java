package dev.keel.agent.internal.run;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.db.Database;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.server.RequestContext;
import dev.keel.mcp.server.transport.HandlerThreads;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs statements for tools: within the principal's slot (taken before the SQL is parsed), on a
 * pooled connection that is read-only for its whole session, bounded by the statement timeout,
 * and stopped the moment the request is cancelled (SPEC §3.4).
 *
 * <p>The statement runs on a worker thread, from taking the connection to reading the last row,
 * with the cancel and the timeout armed before it is even prepared. The request waits for the
 * worker only until the timeout (or its cancellation) and a short grace: an engine that cannot
 * stop at once (H2 evaluates some functions in loops that never look at a cancel) then finishes
 * on its own while the request has its answer, still holding the principal's slot and its
 * connection, so it cannot be used to pile up work. A cancelled connection is closed, not
 * reused, and every other one is reset before it goes back to the pool.
 */
public final class QueryRunner {

  private static final Logger LOG = LoggerFactory.getLogger(QueryRunner.class);

  /** How long a request waits for its worker after the statement was told to stop. */
  static final long GRACE_MILLIS = 500;

  /** Why an embedded H2 statement was stopped by {@link H2MemoryGuard}. */
  static final String LOW_MEMORY = "Stopped before the agent's memory ran out: the embedded H2 "
      + "database holds what a statement sorts, groups, collects or recurses over in the agent's "
      + "own memory; narrow it (a WHERE clause, fewer rows to sort, an end to the recursion)";

  private static final ExecutorService WORKERS = HandlerThreads.newExecutor("keel-agent-sql");

  /**
   * Embedded H2 statements run on platform threads even where handlers are virtual: the memory
   * guard tells the statement that fills the heap from a quick one by what each thread
   * allocated, which the JVM counts for platform threads only. H2 also synchronizes on its
   * session inside every statement, which would pin a virtual thread's carrier on 21 to 23.
   * Admission bounds how many run at once, so the pool needs no bound of its own.
   */
  static final ExecutorService H2_WORKERS = h2Workers();

  private static final ScheduledExecutorService TIMER = timer();

  private final Database db;
  private final AgentLimits limits;
  private final PrincipalSlots slots;
  private final TimeBudget budget;
  private final Quotas quotas;

  /** Creates the runner of a database. */
  public QueryRunner(Database db, AgentLimits limits) {
    this.db = db;
    this.limits = limits;
    this.slots = new PrincipalSlots(limits.maxConcurrentQueries());
    this.budget = new TimeBudget(limits.cost().timeBudgetPerMinute());
    this.quotas = new Quotas(limits.cost().queriesPerMinute(), limits.cost().rowsPerMinute(),
        System::nanoTime);
  }

  private static ExecutorService h2Workers() {
    AtomicInteger count = new AtomicInteger();
    return new ThreadPoolExecutor(0, Integer.MAX_VALUE, 30, TimeUnit.SECONDS,
        new SynchronousQueue<>(), r -> {
          Thread t = new Thread(r, "keel-agent-h2-" + count.incrementAndGet());
          t.setDaemon(true);
          return t;
        });
  }

  private static ScheduledExecutorService timer() {
    ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, "keel-agent-statement-timeout");
      t.setDaemon(true);
      return t;
    });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** Returns the limits. */
  public AgentLimits limits() {
    return limits;
  }

  /**
   * Takes one of the calling principal's statement slots; close it when done.
   *
   * @throws QueryFailedException when the principal already runs its limit
   */
  public Admission admit(RequestContext ctx) {
    String who = ctx.principal().fingerprint();
    if (!slots.tryAcquire(who)) {
      throw new QueryFailedException("Too many statements running for you (the limit is "
          + slots.limit() + " at once); try again when one has finished");
    }
    try {
      quotas.start(who);
    } catch (RuntimeException e) {
      slots.release(who);
      throw e;
    }
    return new Admission(() -> slots.release(who));
  }

  /**
   * Runs a query built by the agent, in its own slot.
   *
   * @see #read(Admission, RequestContext, String, List, int, Collection)
   */
  public ObjectNode read(RequestContext ctx, String sql, List<JsonNode> params, int maxRows) {
    try (Admission admission = admit(ctx)) {
      return read(admission, ctx, sql, params, maxRows, null);
    }
  }

  /**
   * Runs a query in a read-only transaction and returns its bounded result.
   *
   * @param maxRows the most rows to return (at most the configured limit)
   * @param tables the tables the statement may read (for the engine's own check where it has
   *     one), or null when the agent built the statement itself
   * @throws QueryFailedException with a peer-safe message when it fails
   * @throws RequestCancelledException when the request was cancelled meanwhile
   */
  public ObjectNode read(Admission admission, RequestContext ctx, String sql,
      List<JsonNode> params, int maxRows, Collection<String> tables) {
    int rows = Math.max(1, Math.min(maxRows, limits.maxRows()));
    ObjectNode result = run(admission, ctx, false, (c, canceller, token) -> {
      guard(c, sql, params.size(), tables);
      // --- admission by the planner's estimate: begin ---
      if (db.dialect() == Dialect.POSTGRESQL && limits.cost().estimates()) {
        guard(c, "EXPLAIN (FORMAT JSON) " + sql, params.size(), null);
        String refusal = PlanEstimate.of(c, sql, params).refusal(limits.cost());
        if (refusal != null) {
          throw new dev.keel.agent.internal.sql.QueryRefusedException(refusal);
        }
      }
      if (db.dialect() == Dialect.MYSQL
          && limits.cost().maxEstimatedRows() != Long.MAX_VALUE) {
        String refusal = MySqlEstimate.of(c, sql, params).refusal(limits.cost());
        if (refusal != null) {
          throw new dev.keel.agent.internal.sql.QueryRefusedException(refusal);
        }
      }
      // --- admission by the planner's estimate: end ---
      ValueCaps caps = null;
      String text = sql;
      if (db.dialect() == Dialect.POSTGRESQL) {
        try (PreparedStatement describe = c.prepareStatement(sql)) {
          canceller.running(describe);
          bindAll(describe, params);
          ResultSetMetaData meta = describe.getMetaData();
          if (meta != null && meta.getColumnCount() > 0) {
            caps = ValueCaps.of(sql, meta, limits.maxCellChars());
            text = caps.sql;
            guard(c, text, params.size(), null);
          }
        }
      }
      try (PreparedStatement p = c.prepareStatement(text, ResultSet.TYPE_FORWARD_ONLY,
          ResultSet.CONCUR_READ_ONLY)) {
        canceller.running(p);
        prepare(p, params, rows, caps == null ? 1 : caps.width());
        token.throwIfCancelled();
        ObjectNode out;
        try (ResultSet rs = p.executeQuery()) {
          out = new BoundedResult(rows, limits.maxResultBytes(), limits.maxCellChars(), token,
              caps).read(rs);
        }
        if (db.dialect() == Dialect.MYSQL && hasNull(out)) {
          noteValuesTheServerDropped(c, out);
        }
        return out;
      }
    });
    quotas.rows(ctx.principal().fingerprint(), result.path("rowCount").asLong(0));
    return result;
  }

  /**
   * MySQL and MariaDB answer a string function whose result would exceed the server's
   * {@code max_allowed_packet} with NULL and a warning (1301); the result says so instead of
   * passing the NULL off as the value. Asked only when a NULL came back, right after the
   * statement, whose warnings the server keeps until the next one.
   */
  private static void noteValuesTheServerDropped(Connection c, ObjectNode result)
      throws SQLException {
    try (Statement s = c.createStatement(); ResultSet w = s.executeQuery("SHOW WARNINGS")) {
      while (w.next()) {
        if (w.getInt(2) == 1301) {
          BoundedResult.serverCut(result, "a value was larger than the server's "
              + "max_allowed_packet and came back as NULL");
          return;
        }
      }
    }
  }

  private static boolean hasNull(ObjectNode result) {
    for (JsonNode row : result.path("rows")) {
      for (JsonNode value : row) {
        if (value.isNull()) {
          return true;
        }
      }
    }
    return false;
  }

  /** Runs {@code EXPLAIN} of a checked query: plan lines are short, so values are not capped. */
  public ObjectNode explain(Admission admission, RequestContext ctx, String sql,
      List<JsonNode> params, int maxLines, Collection<String> tables) {
    return run(admission, ctx, false, (c, canceller, token) -> {
      guard(c, sql, params.size(), tables);
      // SQLite's EXPLAIN lists bytecode; its plan is EXPLAIN QUERY PLAN
      String text = (db.dialect() == Dialect.SQLITE ? "EXPLAIN QUERY PLAN " : "EXPLAIN ") + sql;
      if (db.dialect() == Dialect.POSTGRESQL) {
        guard(c, text, params.size(), null);
      }
      try (PreparedStatement p = c.prepareStatement(text, ResultSet.TYPE_FORWARD_ONLY,
          ResultSet.CONCUR_READ_ONLY)) {
        canceller.running(p);
        prepare(p, params, maxLines, 1);
        token.throwIfCancelled();
        try (ResultSet rs = p.executeQuery()) {
          return new BoundedResult(maxLines, limits.maxResultBytes(), limits.maxCellChars(),
              token, null).read(rs);
        }
      }
    });
  }

  // --- analysis tools' access: begin ---

  /** Work an analysis tool does on a read connection, inside the runner's bounds. */
  @FunctionalInterface
  public interface ReadWork<T> {
    /** Does the work on {@code c}, a connection in a read-only transaction. */
    T run(Connection c) throws SQLException;
  }

  /**
   * Runs {@code work} on a read connection in a read-only transaction, within the principal's
   * slot, time budget and statement timeout, stopped when the request is cancelled; the
   * transaction is rolled back and the connection reset afterwards.
   */
  public <T> T onReadConnection(Admission admission, RequestContext ctx, ReadWork<T> work) {
    return run(admission, ctx, false, (c, canceller, token) -> work.run(c));
  }

  /**
   * The engine's own reading of a statement the check passed, for tools that run it in ways
   * of their own (EXPLAIN variants): refuses it unless the engine reads one statement.
   */
  public void guard(Connection c, String sql, int parameters) throws SQLException {
    guard(c, sql, parameters, null);
  }

  // --- analysis tools' access: end ---

  /**
   * Runs one write statement in a read-write transaction and commits it only when it changed
   * exactly {@code expectedRows} rows (or any number when negative).
   *
   * @return the rows changed
   */
  public int write(RequestContext ctx, String sql, List<JsonNode> params, int expectedRows) {
    try (Admission admission = admit(ctx)) {
      return run(admission, ctx, true, (c, canceller, token) -> {
        if (db.dialect() == Dialect.POSTGRESQL) {
          String refusal = DriverCheck.refusal(sql, params.size());
          if (refusal != null) {
            throw new QueryFailedException("Refused before the database: " + refusal);
          }
        }
        try (PreparedStatement p = c.prepareStatement(sql)) {
          canceller.running(p);
          prepare(p, params, 0, 1);
          token.throwIfCancelled();
          int changed = p.executeUpdate();
          if (expectedRows >= 0 && changed != expectedRows) {
            c.rollback();
            throw new QueryFailedException("The rows changed while waiting for approval ("
                + changed + " would change, " + expectedRows + " were approved); nothing "
                + "was written");
          }
          token.throwIfCancelled();
          c.commit();
          return changed;
        }
      });
    }
  }

  /**
   * The engine's own reading of a statement, where there is one, before it runs: the driver's
   * statement split on PostgreSQL, H2's parser on an embedded H2.
   */
  private void guard(Connection c, String sql, int parameters, Collection<String> tables)
      throws SQLException {
    String refusal = switch (db.dialect()) {
      case POSTGRESQL -> DriverCheck.refusal(sql, parameters);
      case H2 -> H2Guard.refusal(c, sql, db.schema(), tables);
      case SQLITE -> SqliteGuard.refusal(c, sql, tables);
      default -> null;
    };
    if (refusal != null) {
      // the check let through what the engine reads differently: a bug there, never the
      // caller's to see in detail
      LOG.warn("a statement that passed the check was refused by the engine's own reading: {}",
          refusal);
      throw new QueryFailedException("Refused before the database ran it: " + refusal);
    }
  }

  /** Work on a connection, on the worker thread. */
  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c, Canceller canceller, CancellationToken token) throws SQLException;
  }

  private <T> T run(Admission admission, RequestContext ctx, boolean write, Work<T> work) {
    CancellationToken token = ctx.cancellation();
    token.throwIfCancelled();
    if (write && !db.allowsWrites()) {
      throw new QueryFailedException("Writes are not enabled on this agent");
    }
    CompletableFuture<T> result = new CompletableFuture<>();
    AtomicBoolean timedOut = new AtomicBoolean();
    AtomicBoolean lowMemory = new AtomicBoolean();
    CompletableFuture<Void> stopped = new CompletableFuture<>();
    // the principal's time budget: the statement may run for what is left, at most the timeout
    TimeBudget.Grant grant = budget.reserve(ctx.principal().fingerprint(),
        limits.statementTimeout());
    long timeoutMillis = Math.max(1, grant.timeout().toMillis());
    Admission held = admission.retain();
    try {
      (db.dialect() == Dialect.H2 ? H2_WORKERS : WORKERS).execute(() -> {
        T value = null;
        Throwable failure = null;
        try (held; grant) {
          value = onConnection(write, work, token, timedOut, lowMemory, stopped, timeoutMillis);
        } catch (Throwable e) {
          failure = e;
        }
        // the slot and the time are given back before the caller hears: completed first, a
        // caller that called again at once found its own slot still held, and on one busy core
        // a client calling one statement after another was refused as if it ran four at once
        if (failure == null) {
          result.complete(value);
        } else {
          result.completeExceptionally(failure);
        }
      });
    } catch (RejectedExecutionException e) {
      held.close();
      grant.close();
      throw new QueryFailedException("The agent is shutting down");
    }
    try {
      return await(result, stopped, timedOut, lowMemory, token);
    } catch (QueryFailedException e) {
      // stopped by the timer or by the server's own statement_timeout, whichever came first
      if (grant.limitedByBudget() && (timedOut.get()
          || e.getMessage().startsWith("The statement was stopped"))) {
        throw new QueryFailedException(grant.exhausted());
      }
      throw e;
    }
  }

  private <T> T onConnection(boolean write, Work<T> work, CancellationToken token,
      AtomicBoolean timedOut, AtomicBoolean lowMemory, CompletableFuture<Void> stopped,
      long timeoutMillis) throws SQLException {
    Connection c = (write ? db.writes() : db.reads()).getConnection();
    Canceller canceller = new Canceller(db.dialect(), c);
    // an embedded H2 holds its intermediate results in this JVM's heap
    H2MemoryGuard.Watch memory = db.dialect() != Dialect.H2 ? null : H2MemoryGuard.watch(() -> {
      lowMemory.set(true);
      canceller.cancel();
      stopped.complete(null);
    });
    ScheduledFuture<?> timer = TIMER.schedule(() -> {
      timedOut.set(true);
      canceller.cancel();
      stopped.complete(null);
    }, timeoutMillis, TimeUnit.MILLISECONDS);
    boolean ended = false;
    try (CancellationToken.Registration r = token.onCancel(() -> {
      canceller.cancel();
      stopped.complete(null);
    })) {
      if (db.dialect() == Dialect.POSTGRESQL) {
        // before the first statement: the driver reads errors and notices whole, and an error
        // can quote a value of any size
        PgMessageCap.install(c);
      }
      begin(c, write, timeoutMillis);
      T value = work.run(c, canceller, token);
      ended = true;
      return value;
    } finally {
      timer.cancel(false);
      if (memory != null) {
        memory.close();
      }
      boolean interrupted = Thread.interrupted();
      if (canceller.fired() || !ended && c.isClosed()) {
        db.evict(c, write);
      } else {
        try {
          c.rollback();
        } catch (SQLException e) {
          LOG.debug("rollback failed", e);
        }
        db.release(c, write);
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * Waits for the worker: until it answers, or, once the statement was told to stop (timeout or
   * cancellation), for a short grace more.
   */
  private <T> T await(CompletableFuture<T> result, CompletableFuture<Void> stopped,
      AtomicBoolean timedOut, AtomicBoolean lowMemory, CancellationToken token) {
    try {
      try {
        CompletableFuture.anyOf(result, stopped).get();
      } catch (ExecutionException failed) {
        // the worker failed: its exception is unwrapped below
      }
      if (!result.isDone()) {
        try {
          return unwrap(result, GRACE_MILLIS, timedOut, lowMemory, token);
        } catch (TimeoutException e) {
          if (token.isCancelled()) {
            throw new RequestCancelledException(token.reason());
          }
          if (lowMemory.get()) {
            throw new QueryFailedException(LOW_MEMORY + " (the database is still winding it "
                + "down)");
          }
          throw new QueryFailedException("The statement was stopped: it ran longer than the "
              + "statement timeout (the database is still winding it down)");
        }
      }
      return unwrap(result, 0, timedOut, lowMemory, token);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RequestCancelledException(token.reason());
    } catch (TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  private <T> T unwrap(CompletableFuture<T> result, long waitMillis, AtomicBoolean timedOut,
      AtomicBoolean lowMemory, CancellationToken token)
      throws TimeoutException, InterruptedException {
    try {
      return waitMillis > 0 ? result.get(waitMillis, TimeUnit.MILLISECONDS) : result.get();
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (token.isCancelled()) {
        throw new RequestCancelledException(token.reason());
      }
      if (cause instanceof SQLException sql) {
        LOG.debug("statement failed: {}", sql.toString());
        if (lowMemory.get()) {
          return rethrow(new QueryFailedException(LOW_MEMORY));
        }
        if (timedOut.get()) {
          return rethrow(new QueryFailedException("The statement was stopped: it ran longer "
              + "than the statement timeout"));
        }
        return rethrow(new QueryFailedException(SqlErrors.message(sql)));
      }
      if (cause instanceof RuntimeException r) {
        return rethrow(r);
      }
      if (cause instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(cause);
    }
  }

  private static <T> T rethrow(RuntimeException e) {
    throw e;
  }

  /** Starts the transaction: read-only unless writing, with the statement timeout. */
  private void begin(Connection c, boolean write, long timeoutMillis) throws SQLException {
    if (db.dialect() == Dialect.POSTGRESQL) {
      try (Statement s = c.createStatement()) {
        // Said explicitly, on top of the session's read-only default.
        s.execute((write ? "SET TRANSACTION READ WRITE" : "SET TRANSACTION READ ONLY")
            + "; SET LOCAL statement_timeout = " + timeoutMillis);
      }
    }
  }

  private void prepare(PreparedStatement p, List<JsonNode> params, int maxRows, int width)
      throws SQLException {
    long seconds = Math.max(1, (limits.statementTimeout().toMillis() + 999) / 1000);
    p.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, seconds));
    if (maxRows > 0) {
      // one row more than returned, to know whether the result was cut; the driver holds a
      // whole fetch in memory, so a fetch stays within a few times the byte limit
      p.setMaxRows(maxRows + 1);
      long rowBytes = Math.max(1, (long) width * limits.maxCellChars() * 4);
      long fit = Math.max(1, 4 * limits.maxResultBytes() / rowBytes);
      p.setFetchSize(db.dialect() == Dialect.MYSQL ? mysqlFetchSize(p)
          : (int) Math.min(Math.min(maxRows + 1, 256), fit));
    }
    bindAll(p, params);
  }

  /**
   * One row at a time: a MySQL or MariaDB row is bounded only by the driver's packet limit, and
   * the server pushes rows without being asked, so holding one costs no round trip. MySQL's
   * driver streams only at {@code Integer.MIN_VALUE} (any other size reads the whole result).
   */
  private static int mysqlFetchSize(PreparedStatement p) throws SQLException {
    return p.getConnection().isWrapperFor(org.mariadb.jdbc.Connection.class) ? 1
        : Integer.MIN_VALUE;
  }

  private static void bindAll(PreparedStatement p, List<JsonNode> params) throws SQLException {
    for (int i = 0; i < params.size(); i++) {
      bind(p, i + 1, params.get(i));
    }
  }

  static void bind(PreparedStatement p, int index, JsonNode value) throws SQLException {
    if (value == null || value.isNull()) {
      p.setNull(index, Types.NULL);
    } else if (value.isBoolean()) {
      p.setBoolean(index, value.booleanValue());
    } else if (value.isIntegralNumber() && value.canConvertToLong()) {
      p.setLong(index, value.longValue());
    } else if (value.isNumber()) {
      p.setBigDecimal(index, value.decimalValue());
    } else if (value.isString()) {
      p.setString(index, value.stringValue());
    } else {
      throw new QueryFailedException("Parameters must be strings, numbers, booleans or null");
    }
  }
}
