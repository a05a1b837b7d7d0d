package dev.keel.agent.internal.db;

import com.zaxxer.hikari.HikariConfig;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteConnection;
import org.sqlite.SQLiteLimits;
import org.sqlite.SQLiteOpenMode;

/**
 * How the agent opens a SQLite database file, and what it checks on every connection. SQLite
 * has no server, roles or sessions to pin, so the read-only promise rests on how the file is
 * opened:
 * <ul>
 *   <li>read connections are opened {@code SQLITE_OPEN_READONLY} (the library refuses every
 *       write to the file, whatever the statement) and run {@code PRAGMA query_only = ON} (no
 *       write at all, temporary tables included);</li>
 *   <li>no connection may attach another database ({@code SQLITE_LIMIT_ATTACHED} is 0) or load
 *       an extension (off, as the library defaults), and {@code trusted_schema} is off, so
 *       functions with side effects cannot run from inside views;</li>
 *   <li>a value may not grow past {@link #MAX_VALUE_BYTES} ({@code SQLITE_LIMIT_LENGTH}), which
 *       bounds {@code randomblob}, {@code zeroblob}, {@code printf} and {@code replace} in the
 *       agent's own memory: SQLite runs inside the agent's process;</li>
 *   <li>the file must exist: no connection is opened with {@code SQLITE_OPEN_CREATE}, so a
 *       mistyped path fails instead of creating an empty database;</li>
 *   <li>{@code :memory:}, URI file names ({@code file:...?mode=rwc}) and URL options are
 *       refused: an in-memory database would be a new, empty one on every pooled connection,
 *       and URI parameters ({@code mode}, {@code vfs}, {@code immutable}) would override the
 *       open mode.</li>
 * </ul>
 * Every read connection is checked when it goes back to the pool ({@code query_only} still on,
 * only the main database, no temporary object), and closed if anything changed.
 */
public final class SqlitePins {

  /** The largest string or blob a statement may make or read, in bytes. */
  public static final int MAX_VALUE_BYTES = 16 << 20;

  /** The one schema of a SQLite database file as the agent exposes it. */
  public static final String SCHEMA = "main";

  private SqlitePins() {}

  /**
   * Returns the database file of a {@code jdbc:sqlite:} URL.
   *
   * @throws IllegalArgumentException when the URL names no existing file the agent accepts
   */
  public static Path file(String url) {
    String rest = url.substring("jdbc:sqlite:".length());
    String lower = rest.toLowerCase(Locale.ROOT);
    if (rest.isEmpty() || lower.contains(":memory:") || lower.startsWith("file:")
        || rest.contains("?")) {
      throw new IllegalArgumentException("a SQLite URL must name a database file by its path "
          + "(jdbc:sqlite:/path/to/shop.db), without :memory:, file: URIs or options: an "
          + "in-memory database would be empty on every connection, and URI options would "
          + "override how the agent opens the file");
    }
    Path path = Path.of(rest);
    if (!Files.isRegularFile(path)) {
      throw new IllegalArgumentException("no SQLite database file at " + path + " (the agent "
          + "never creates one)");
    }
    return path;
  }

  /** Returns the schema to expose: only {@code main} exists for the agent. */
  static String schema(String requested) {
    if (requested != null && !requested.equals(SCHEMA)) {
      throw new IllegalArgumentException("a SQLite database exposes only the schema main");
    }
    return SCHEMA;
  }

  /** Points a pool at the file, opened as described above. */
  static void apply(HikariConfig config, boolean readOnly) {
    Path path = file(config.getJdbcUrl());
    SQLiteConfig sqlite = new SQLiteConfig();
    if (readOnly) {
      sqlite.setReadOnly(true);
    } else {
      sqlite.resetOpenMode(SQLiteOpenMode.CREATE);
    }
    sqlite.enableLoadExtension(false);
    config.setDataSource(new PinnedFile(path.toString(), sqlite, readOnly));
    config.setJdbcUrl(null);
    config.setUsername(null);
    config.setPassword(null);
  }

  /** Sets what the open flags cannot: limits and pragmas, on every new connection. */
  private static void pin(Connection c, boolean readOnly) throws SQLException {
    SQLiteConnection sqlite = c.unwrap(SQLiteConnection.class);
    sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_ATTACHED, 0);
    sqlite.setLimit(SQLiteLimits.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
    try (Statement s = c.createStatement()) {
      s.execute("PRAGMA trusted_schema = OFF");
      if (readOnly) {
        s.execute("PRAGMA query_only = ON");
      }
    }
  }

  /** Returns what is wrong with a read connection, or an empty list. */
  static List<String> problems(Connection c, boolean readOnly) throws SQLException {
    List<String> problems = new ArrayList<>();
    SQLiteConnection sqlite = c.unwrap(SQLiteConnection.class);
    if (readOnly && (sqlite.getDatabase().getConfig().getOpenModeFlags()
        & SQLiteOpenMode.READONLY.flag) == 0) {
      problems.add("the database file is not opened read-only");
    }
    try (Statement s = c.createStatement()) {
      if (readOnly) {
        try (ResultSet rs = s.executeQuery("PRAGMA query_only")) {
          if (!rs.next() || rs.getInt(1) != 1) {
            problems.add("PRAGMA query_only is not on");
          }
        }
      }
      try (ResultSet rs = s.executeQuery("PRAGMA database_list")) {
        while (rs.next()) {
          String name = rs.getString("name");
          if (!name.equals("main") && !name.equals("temp")) {
            problems.add("another database is attached");
          }
        }
      }
      try (ResultSet rs = s.executeQuery("SELECT count(*) FROM temp.sqlite_master")) {
        if (rs.next() && rs.getLong(1) != 0) {
          problems.add("the session holds temporary objects");
        }
      }
    }
    return problems;
  }

  /** Returns true when a connection is as it was opened. */
  static boolean clean(Connection c) {
    try {
      c.rollback();
      boolean readOnly = (c.unwrap(SQLiteConnection.class).getDatabase().getConfig()
          .getOpenModeFlags() & SQLiteOpenMode.READONLY.flag) != 0;
      boolean clean = problems(c, readOnly).isEmpty();
      c.rollback();
      return clean;
    } catch (SQLException | RuntimeException e) {
      return false;
    }
  }

  /** What the file lets the agent's operating-system user change. */
  static List<String> writes(Connection c) throws SQLException {
    String url = c.getMetaData().getURL();
    if (url == null || !url.startsWith("jdbc:sqlite:")) {
      return List.of();
    }
    Path path = Path.of(url.substring("jdbc:sqlite:".length()));
    return Files.isWritable(path)
        ? List.of("the database file " + path + " is writable by the agent's operating-system "
            + "user (the agent opens it read-only; make it read-only for that user too)")
        : List.of();
  }

  /** The file as a data source whose connections are pinned before the pool sees them. */
  private static final class PinnedFile implements DataSource {
    private final String url;
    private final SQLiteConfig config;
    private final boolean readOnly;

    PinnedFile(String path, SQLiteConfig config, boolean readOnly) {
      this.url = "jdbc:sqlite:" + path;
      this.config = config;
      this.readOnly = readOnly;
    }

    @Override
    public Connection getConnection() throws SQLException {
      Connection c = config.createConnection(url);
      try {
        pin(c, readOnly);
        return c;
      } catch (SQLException | RuntimeException e) {
        c.close();
        throw e;
      }
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return getConnection();
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {}

    @Override
    public void setLoginTimeout(int seconds) {}

    @Override
    public int getLoginTimeout() {
      return 0;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      throw new SQLException("not a wrapper");
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return false;
    }
  }
}
