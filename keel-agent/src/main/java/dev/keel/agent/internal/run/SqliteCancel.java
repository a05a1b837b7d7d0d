package dev.keel.agent.internal.run;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.function.BooleanSupplier;
import org.sqlite.ProgressHandler;
import org.sqlite.SQLiteConnection;

/**
 * Stopping a statement on SQLite. {@code sqlite3_interrupt} stops only statements already
 * running, and the driver's {@code setQueryTimeout} is a busy timeout, not a statement
 * timeout; so besides the interrupt the connection gets a progress handler that SQLite calls
 * every {@link #OPCODES} virtual machine steps and that stops the statement once the cancel
 * has fired, whenever it started.
 */
final class SqliteCancel {

  /** Virtual machine steps between two looks at the cancel (well under a millisecond). */
  static final int OPCODES = 10_000;

  private SqliteCancel() {}

  /** Makes every statement on {@code c} stop once {@code fired} says so. */
  static void watch(Connection c, BooleanSupplier fired) {
    try {
      ProgressHandler.setHandler(c.unwrap(SQLiteConnection.class), OPCODES,
          new ProgressHandler() {
            @Override
            protected int progress() {
              return fired.getAsBoolean() ? 1 : 0;
            }
          });
    } catch (SQLException e) {
      throw new IllegalStateException("cannot watch a SQLite connection for cancels", e);
    }
  }

  /** Interrupts whatever runs on {@code c} now. */
  static void interrupt(Connection c) throws SQLException {
    c.unwrap(SQLiteConnection.class).getDatabase().interrupt();
  }
}
