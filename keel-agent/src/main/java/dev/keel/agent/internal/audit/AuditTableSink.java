package dev.keel.agent.internal.audit;

import dev.keel.agent.AuditTable;
import dev.keel.agent.internal.db.Dialect;
import dev.keel.agent.internal.db.JdbcDrivers;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes audit entries to a database table, off the callers' threads: a tool call never waits
 * for the audit database, and a slow or absent one never slows or stops the agent. Entries go
 * into a bounded queue that one thread writes in batches; a batch that fails is kept and
 * written again once a new connection is made (the table created again if it went), so an
 * outage of the audit database loses nothing unless the queue fills, and then the oldest
 * entries go first and the count of lost ones is logged.
 *
 * <p>The connection, the table and its columns are checked when the agent starts: a wrong URL,
 * password or table shape stops the start with a message naming the URL (never the password),
 * rather than an agent that silently audits nothing.
 */
final class AuditTableSink implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(AuditTableSink.class);

  /** Entries waiting, at most: at about 1 KiB each, a few MiB of heap during an outage. */
  static final int QUEUE = 10_000;
  private static final int BATCH = 200;
  private static final int MAX_STATEMENT = 20_000;
  private static final int MAX_REASON = 4_000;
  private static final String COLUMNS = "recorded_at, principal, fingerprint, source_name, "
      + "tool, digest, statement, outcome, reason, millis, row_count";

  /** An entry with the time and digest it was recorded with. */
  record Row(Instant at, AuditEntry entry, String digest) {}

  private final AuditTable target;
  private final Dialect dialect;
  private final BlockingQueue<Row> queue = new ArrayBlockingQueue<>(QUEUE);
  private final AtomicLong dropped = new AtomicLong();
  private final Thread writer;
  private volatile boolean closing;
  private Connection connection;
  private boolean failing;

  private AuditTableSink(AuditTable target) {
    this.target = target;
    this.dialect = Dialect.of(target.jdbcUrl());
    this.writer = new Thread(this::run, "keel-audit-table");
    this.writer.setDaemon(true);
  }

  /**
   * Connects, creates the table when it is missing, checks its columns and starts writing.
   *
   * @throws IllegalStateException naming the URL and table when any of that fails
   */
  static AuditTableSink start(AuditTable target) {
    AuditTableSink sink = new AuditTableSink(target);
    try {
      sink.connection = sink.connect();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot use the audit table " + target.table() + " at "
          + target.jdbcUrl() + ": " + e.getMessage(), e);
    }
    sink.writer.start();
    return sink;
  }

  /** Queues an entry; when the queue is full the oldest waiting entry is dropped. */
  void offer(Row row) {
    while (!queue.offer(row)) {
      if (queue.poll() != null) {
        dropped.incrementAndGet();
      }
    }
  }

  private Connection connect() throws SQLException {
    Connection c = JdbcDrivers.connect(target.jdbcUrl(), target.user(),
        target.password());
    try {
      c.setAutoCommit(true);
      try (Statement s = c.createStatement()) {
        try {
          shape(s);
        } catch (SQLException missing) {
          // a role that may only insert cannot run CREATE TABLE, even IF NOT EXISTS (PostgreSQL
          // checks the schema first): create only when the table is not there
          s.execute("CREATE TABLE IF NOT EXISTS " + target.table() + " (recorded_at "
              + "TIMESTAMP NOT NULL, principal VARCHAR(400), fingerprint VARCHAR(100), "
              + "source_name VARCHAR(100), tool VARCHAR(200), digest CHAR(64), statement "
              + longText() + ", outcome VARCHAR(20) NOT NULL, reason VARCHAR(" + MAX_REASON
              + "), millis BIGINT, row_count BIGINT)");
          // an existing table of another shape fails here, at start-up, not on every write
          shape(s);
        }
      }
      return c;
    } catch (SQLException e) {
      c.close();
      throw e;
    }
  }

  private void shape(Statement s) throws SQLException {
    s.executeQuery("SELECT " + COLUMNS + " FROM " + target.table() + " WHERE 1 = 0").close();
  }

  private String longText() {
    return switch (dialect) {
      case MYSQL -> "MEDIUMTEXT";
      case SQLITE -> "TEXT";
      default -> "VARCHAR(" + MAX_STATEMENT + ")";
    };
  }

  private void run() {
    List<Row> batch = new ArrayList<>();
    long backoff = 0;
    while (true) {
      try {
        if (batch.isEmpty()) {
          Row first = queue.poll(200, TimeUnit.MILLISECONDS);
          if (first == null) {
            if (closing) {
              return;
            }
            continue;
          }
          batch.add(first);
          queue.drainTo(batch, BATCH - 1);
        }
        if (backoff > 0) {
          Thread.sleep(backoff);
        }
        write(batch);
        batch.clear();
        backoff = 0;
        long lost = dropped.getAndSet(0);
        if (failing || lost > 0) {
          LOG.warn("the audit table {} at {} is written again{}", target.table(),
              target.jdbcUrl(), lost > 0 ? "; " + lost + " entries were lost while the queue "
                  + "was full" : "");
          failing = false;
        }
      } catch (InterruptedException e) {
        return;
      } catch (SQLException | RuntimeException e) {
        if (!failing) {
          failing = true;
          LOG.error("the audit table {} at {} cannot be written; entries wait (at most {}) and "
              + "are written when it can be", target.table(), target.jdbcUrl(), QUEUE, e);
        }
        closeConnection();
        if (closing) {
          LOG.error("{} audit entries could not be written to {} before the agent stopped",
              batch.size() + queue.size(), target.table());
          return;
        }
        backoff = Math.min(30_000, Math.max(500, backoff * 2));
      }
    }
  }

  private void write(List<Row> batch) throws SQLException {
    if (connection == null) {
      connection = connect();
    }
    try (PreparedStatement p = connection.prepareStatement("INSERT INTO " + target.table()
        + " (" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
      for (Row row : batch) {
        AuditEntry e = row.entry();
        p.setTimestamp(1, Timestamp.from(row.at()));
        p.setString(2, e.principal());
        p.setString(3, e.fingerprint());
        p.setString(4, e.source());
        p.setString(5, e.tool());
        p.setString(6, row.digest());
        p.setString(7, cut(e.statement(), MAX_STATEMENT));
        p.setString(8, e.outcome().word());
        p.setString(9, cut(e.reason(), MAX_REASON));
        p.setLong(10, e.millis());
        if (e.rows() >= 0) {
          p.setLong(11, e.rows());
        } else {
          p.setNull(11, Types.BIGINT);
        }
        p.addBatch();
      }
      p.executeBatch();
    }
  }

  private static String cut(String value, int max) {
    return value == null || value.length() <= max ? value : value.substring(0, max);
  }

  private void closeConnection() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException e) {
        LOG.debug("closing the audit connection failed", e);
      }
      connection = null;
    }
  }

  /** Writes what is queued (for at most a few seconds), then closes the connection. */
  @Override
  public void close() {
    closing = true;
    try {
      writer.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isAlive()) {
      writer.interrupt();
      LOG.error("{} audit entries could not be written to {} before the agent stopped",
          queue.size(), target.table());
    } else {
      closeConnection();
    }
  }
}
