package dev.keel.agent.internal.run;

import dev.keel.agent.internal.db.Dialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops whatever a connection is doing, from the moment it is taken from the pool: preparing
 * (H2 evaluates constants while preparing), executing or fetching. PostgreSQL's and H2's own
 * connection-level cancel cover the time before a statement object exists; other engines get
 * {@code Statement.cancel()} once there is one. A connection that was ever cancelled is not
 * reused: a cancel that lands late would stop the next statement on it (H2 keeps the flag).
 */
final class Canceller {

  private static final Logger LOG = LoggerFactory.getLogger(Canceller.class);

  // A cancel may open a connection of its own (PostgreSQL does); it runs here so the thread
  // that cancels the request is never held up.
  private static final ExecutorService THREADS = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "keel-agent-cancel");
    t.setDaemon(true);
    return t;
  });

  private final Dialect dialect;
  private final Connection connection;
  private volatile Statement statement;
  private volatile boolean fired;

  Canceller(Dialect dialect, Connection connection) {
    this.dialect = dialect;
    this.connection = connection;
    if (dialect == Dialect.SQLITE) {
      SqliteCancel.watch(connection, this::fired);
    }
  }

  /** Names the statement now running, for engines that can only cancel a statement. */
  void running(Statement value) {
    this.statement = value;
    if (fired && (dialect == Dialect.OTHER || dialect == Dialect.MYSQL
        || dialect == Dialect.SQLITE)) {
      cancel();
    }
  }

  /** Returns true once a cancel was sent. */
  boolean fired() {
    return fired;
  }

  /** Sends the cancel; idempotent enough (a second cancel is harmless). */
  void cancel() {
    fired = true;
    THREADS.execute(() -> {
      try {
        switch (dialect) {
          case POSTGRESQL -> connection.unwrap(org.postgresql.PGConnection.class).cancelQuery();
          case H2 -> connection.unwrap(org.h2.jdbc.JdbcConnection.class).getSession().cancel();
          // KILL QUERY from a second connection; MariaDB's driver can do it before a statement
          // object exists, MySQL's only through the statement
          case MYSQL -> {
            if (connection.isWrapperFor(org.mariadb.jdbc.Connection.class)) {
              connection.unwrap(org.mariadb.jdbc.Connection.class).cancelCurrentQuery();
            } else if (statement != null) {
              statement.cancel();
            }
          }
          case SQLITE -> SqliteCancel.interrupt(connection);
          default -> {
            Statement s = statement;
            if (s != null) {
              s.cancel();
            }
          }
        }
      } catch (SQLException | RuntimeException e) {
        LOG.debug("cancelling a statement failed (it may have ended)", e);
      }
    });
  }
}
