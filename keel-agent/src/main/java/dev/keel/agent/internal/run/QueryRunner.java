package dev.keel.agent.internal.run;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.db.Database;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.mcp.core.CancellationToken;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.server.RequestContext;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Runs statements for tools: within the principal's concurrency slot, on a pooled connection,
 * in a transaction that is always rolled back (reads) or committed only as a whole (writes),
 * bounded by the statement timeout, and stopped with {@code Statement.cancel()} the moment the
 * request is cancelled (a {@code notifications/cancelled}, a closed stream or the tool timeout;
 * SPEC §3.4). The connection goes back to the pool whatever happens.
 */
public final class QueryRunner {

  private static final Logger LOG = LoggerFactory.getLogger(QueryRunner.class);

  // Statement.cancel() may open a connection of its own (PostgreSQL does); it runs here so the
  // thread that cancels the request is never held up.
  private static final ExecutorService CANCELLERS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "keel-agent-cancel");
    t.setDaemon(true);
    return t;
  });

  private final Database db;
  private final AgentLimits limits;
  private final PrincipalSlots slots;

  /** Creates the runner of a database. */
  public QueryRunner(Database db, AgentLimits limits) {
    this.db = db;
    this.limits = limits;
    this.slots = new PrincipalSlots(limits.maxConcurrentQueries());
  }

  /** Returns the limits. */
  public AgentLimits limits() {
    return limits;
  }

  /**
   * Runs a query in a read-only transaction and returns its bounded result.
   *
   * @param maxRows the most rows to return (at most the configured limit)
   * @throws QueryFailedException with a peer-safe message when it fails
   * @throws RequestCancelledException when the request was cancelled meanwhile
   */
  public ObjectNode read(RequestContext ctx, String sql, List<JsonNode> params, int maxRows) {
    int rows = Math.max(1, Math.min(maxRows, limits.maxRows()));
    return run(ctx, false, (c, token) -> {
      try (PreparedStatement p = c.prepareStatement(sql, ResultSet.TYPE_FORWARD_ONLY,
          ResultSet.CONCUR_READ_ONLY)) {
        prepare(p, params, rows);
        try (CancellationToken.Registration r = onCancel(token, p)) {
          token.throwIfCancelled();
          try (ResultSet rs = p.executeQuery()) {
            return new BoundedResult(rows, limits.maxResultBytes(), limits.maxCellChars(), token)
                .read(rs);
          }
        }
      }
    });
  }

  /**
   * Runs one write statement in a read-write transaction and commits it only when it changed
   * exactly {@code expectedRows} rows (or any number when negative).
   *
   * @return the rows changed
   */
  public int write(RequestContext ctx, String sql, List<JsonNode> params, int expectedRows) {
    return run(ctx, true, (c, token) -> {
      try (PreparedStatement p = c.prepareStatement(sql)) {
        prepare(p, params, 0);
        try (CancellationToken.Registration r = onCancel(token, p)) {
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
      }
    });
  }

  /** Work on a connection. */
  @FunctionalInterface
  private interface Work<T> {
    T run(Connection c, CancellationToken token) throws SQLException;
  }

  private <T> T run(RequestContext ctx, boolean write, Work<T> work) {
    String who = ctx.principal().fingerprint();
    if (!slots.tryAcquire(who)) {
      throw new QueryFailedException("Too many statements running for you (the limit is "
          + slots.limit() + " at once); try again when one has finished");
    }
    CancellationToken token = ctx.cancellation();
    try {
      if (write && db.writes() == null) {
        throw new QueryFailedException("Writes are not enabled on this agent");
      }
      Connection c = (write ? db.writes() : db.reads()).getConnection();
      try {
        begin(c, write);
        return work.run(c, token);
      } finally {
        release(c);
      }
    } catch (SQLException e) {
      if (token.isCancelled()) {
        throw new RequestCancelledException(token.reason());
      }
      LOG.debug("statement failed: {}", e.toString());
      throw new QueryFailedException(SqlErrors.message(e));
    } finally {
      slots.release(who);
    }
  }

  /** Starts the transaction: read-only unless writing, with the statement timeout. */
  private void begin(Connection c, boolean write) throws SQLException {
    if (db.dialect() == Dialect.POSTGRESQL) {
      try (Statement s = c.createStatement()) {
        // Said explicitly, whatever the driver's readOnlyMode: the second read-only layer.
        s.execute((write ? "SET TRANSACTION READ WRITE" : "SET TRANSACTION READ ONLY")
            + "; SET LOCAL statement_timeout = " + limits.statementTimeout().toMillis());
      }
    }
  }

  private void prepare(PreparedStatement p, List<JsonNode> params, int maxRows)
      throws SQLException {
    long seconds = Math.max(1, (limits.statementTimeout().toMillis() + 999) / 1000);
    p.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, seconds));
    if (maxRows > 0) {
      // one row more than returned, to know whether the result was cut
      p.setMaxRows(maxRows + 1);
      p.setFetchSize(Math.min(maxRows + 1, 256));
    }
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

  private static CancellationToken.Registration onCancel(CancellationToken token,
      Statement statement) {
    return token.onCancel(() -> CANCELLERS.execute(() -> {
      try {
        statement.cancel();
      } catch (SQLException | RuntimeException e) {
        LOG.debug("Statement.cancel failed (the statement may have ended)", e);
      }
    }));
  }

  /**
   * Rolls back whatever is left and returns the connection to the pool. An interrupt (the
   * cancellation reached the thread too) must not stop either, so it is held back meanwhile.
   */
  private static void release(Connection c) {
    boolean interrupted = Thread.interrupted();
    try {
      c.rollback();
    } catch (SQLException e) {
      LOG.debug("rollback failed", e);
    }
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("returning a connection failed", e);
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
