package dev.keel.agent.internal.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.sample.SampleData;
import dev.keel.agent.internal.sample.SampleImage;
import dev.keel.agent.internal.sql.Identifiers;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's connections: a pool for reads whose connections are read-only and never
 * auto-commit, and, only when writes are allowed, a small separate pool for approved writes.
 * For the embedded sample the read pool also logs in as a user that holds nothing but SELECT,
 * because H2 treats {@code Connection.setReadOnly} as a hint only.
 */
public final class Database implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Database.class);
  private static final AtomicInteger SAMPLES = new AtomicInteger();

  private final Dialect dialect;
  private final HikariDataSource reads;
  private final HikariDataSource writes;
  private final Connection keepAlive;
  private final String schema;
  private final Identifiers identifiers;
  private final String product;
  /** The in-memory name of the sample, whose image is freed on close; null for others. */
  private final String sampleName;
  private final List<String> roleWrites;

  private Database(Dialect dialect, HikariDataSource reads, HikariDataSource writes,
      Connection keepAlive, String schema, String sampleName) throws SQLException {
    this.dialect = dialect;
    this.reads = reads;
    this.writes = writes;
    this.keepAlive = keepAlive;
    this.sampleName = sampleName;
    this.schema = schema;
    try (Connection c = reads.getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      this.product = meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
      Identifiers.Fold fold = meta.storesLowerCaseIdentifiers() ? Identifiers.Fold.LOWER
          : meta.storesUpperCaseIdentifiers() ? Identifiers.Fold.UPPER : Identifiers.Fold.NONE;
      this.identifiers = new Identifiers(fold, meta.getIdentifierQuoteString());
      c.rollback();
      List<String> problems = SessionPins.problems(c, dialect, schema, true);
      if (!problems.isEmpty()) {
        throw new IllegalStateException("the read connections cannot be pinned: "
            + String.join("; ", problems));
      }
      List<String> found;
      try {
        found = RolePrivileges.writes(c, dialect);
      } catch (SQLException e) {
        found = List.of("its privileges could not be read (" + e.getMessage() + ")");
      }
      this.roleWrites = List.copyOf(found);
    }
    if (!roleWrites.isEmpty()) {
      LOG.warn("The agent's database role can change the database: {}. The agent refuses "
          + "writes itself, but give it a role that may only read (docs/agent.md shows how).",
          String.join("; ", roleWrites));
    }
  }

  /**
   * Creates the embedded H2 database with the sample dataset.
   *
   * @param writable whether a write pool is needed (writes were allowed)
   */
  public static Database sample(AgentLimits limits, boolean writable) {
    String name = "keel_sample_" + SAMPLES.incrementAndGet();
    String adminPassword = secret();
    String readerPassword = secret();
    Connection keepAlive = null;
    String url;
    try {
      // The first connection creates the database; holding it keeps the data alive while
      // pooled connections come and go. The image the build wrote is the fast way; filling
      // the rows here is the way when the jar has none (SampleImage says why).
      keepAlive = SampleImage.open(name, adminPassword);
      if (keepAlive != null) {
        url = SampleImage.url(name);
      } else {
        url = SampleImage.loadedUrl(name);
        keepAlive = JdbcDrivers.connect(url, "sa", adminPassword);
        SampleData.load(keepAlive);
      }
      try (Statement s = keepAlive.createStatement()) {
        s.execute("CREATE USER keel_reader PASSWORD '" + readerPassword + "'");
        s.execute("GRANT SELECT ON SCHEMA public TO keel_reader");
      }
      HikariDataSource reads = pool("keel-agent-read", url, "keel_reader", readerPassword,
          limits.poolSize(), true, Dialect.H2, "public", limits);
      HikariDataSource writes = writable ? pool("keel-agent-write", url, "sa", adminPassword, 2,
          false, Dialect.H2, "public", limits) : null;
      return new Database(Dialect.H2, reads, writes, keepAlive, "public", name);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(keepAlive);
      SampleImage.delete(name);
      throw new IllegalStateException("cannot create the sample database: " + e.getMessage(), e);
    }
  }

  /**
   * Connects to a database by JDBC URL.
   *
   * @param schema the schema to expose, or null for the connection's current schema
   */
  public static Database connect(String url, String user, String password, String schema,
      AgentLimits limits, boolean writable) {
    Dialect dialect = Dialect.of(url);
    HikariDataSource reads = null;
    HikariDataSource writes = null;
    try {
      String exposed = dialect == Dialect.SQLITE ? SqlitePins.schema(schema)
          : schema != null ? schema : currentSchema(url, user, password);
      String bound = dialect == Dialect.POSTGRESQL ? "maxResultBuffer"
          : dialect == Dialect.MYSQL ? "maxAllowedPacket" : null;
      if (bound != null && url.toLowerCase(java.util.Locale.ROOT)
          .contains(bound.toLowerCase(java.util.Locale.ROOT))) {
        throw new IllegalArgumentException("the JDBC URL sets " + bound + "; the agent sets it "
            + "from its limits (remove it from the URL)");
      }
      reads = pool("keel-agent-read", url, user, password, limits.poolSize(), true, dialect,
          exposed, limits);
      writes = writable ? pool("keel-agent-write", url, user, password, 2, false, dialect,
          exposed, limits) : null;
      return new Database(dialect, reads, writes, null, exposed, null);
    } catch (SQLException | RuntimeException e) {
      if (reads != null) {
        reads.close();
      }
      if (writes != null) {
        writes.close();
      }
      // a driver may repeat the whole URL in its message (pgjdbc does when it cannot parse it)
      throw new IllegalStateException("cannot connect to " + redact(url) + ": "
          + (e.getMessage() == null ? e.getClass().getSimpleName() : redact(e.getMessage())), e);
    }
  }

  /** The schema a plain connection starts in, the one exposed when none was named. */
  private static String currentSchema(String url, String user, String password)
      throws SQLException {
    try (Connection c = JdbcDrivers.connect(url, user, password)) {
      String current = c.getSchema();
      if (current == null && Dialect.of(url) == Dialect.MYSQL) {
        // both MySQL drivers call the database a catalog unless told otherwise
        current = c.getCatalog();
      }
      if (current == null) {
        throw new IllegalArgumentException("the database has no current schema; pass --schema");
      }
      return current;
    }
  }

  /**
   * The most bytes of rows the driver may hold at once, checked before it reads a row, so one
   * huge row fails instead of filling the heap: pgjdbc's {@code maxResultBuffer} (the rows of
   * one fetch), and on MySQL and MariaDB both drivers' {@code maxAllowedPacket} (one packet, so
   * one row; the runner reads their rows one at a time). Within it: one fetch of the query
   * tool's rows, which the runner sizes to a few times the result's byte limit, and a plan or
   * catalog row; more would be cut by the byte limit anyway.
   */
  public static long maxResultBuffer(AgentLimits limits) {
    return Math.min(Integer.MAX_VALUE, 4 * limits.maxResultBytes() + (1 << 20));
  }

  private static HikariDataSource pool(String name, String url, String user, String password,
      int size, boolean readOnly, Dialect dialect, String schema, AgentLimits limits) {
    HikariConfig config = new HikariConfig();
    config.setPoolName(name);
    config.setJdbcUrl(url);
    config.setUsername(user);
    config.setPassword(password);
    config.setMaximumPoolSize(size);
    config.setMinimumIdle(1);
    config.setAutoCommit(false);
    config.setReadOnly(readOnly);
    config.setConnectionTimeout(10_000);
    config.setInitializationFailTimeout(1);
    if (dialect == Dialect.POSTGRESQL) {
      // Send strings untyped so "ordered_at >= ?" with a text value compares as a timestamp.
      config.addDataSourceProperty("stringtype", "unspecified");
      // as a start-up parameter too: the driver otherwise sets its own name, which only the
      // first DISCARD ALL would replace with the one in the options
      config.addDataSourceProperty("ApplicationName", name);
      config.addDataSourceProperty("maxResultBuffer", String.valueOf(maxResultBuffer(limits)));
    } else if (dialect == Dialect.MYSQL) {
      config.addDataSourceProperty("maxAllowedPacket",
          String.valueOf(maxResultBuffer(limits)));
    }
    SessionPins.apply(config, dialect, schema, readOnly);
    if (config.getDataSource() == null) {
      // (SQLite's pins bring a data source of their own.) The driver's settings go with the
      // data source: the pool applies them only to one it makes itself, which would go
      // through DriverManager (see JdbcDrivers).
      config.setDataSource(JdbcDrivers.dataSource(url, config.getDataSourceProperties()));
    }
    return new HikariDataSource(config);
  }

  private static String secret() {
    byte[] bytes = new byte[16];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /** Returns a URL without anything that looks like a password. */
  public static String redact(String url) {
    return url.replaceAll("(?i)(password|pwd)=[^;&]*", "$1=***");
  }

  /** Returns the engine. */
  public Dialect dialect() {
    return dialect;
  }

  /** Returns the schema the agent exposes, as stored. */
  public String schema() {
    return schema;
  }

  /** Returns how the database spells identifiers. */
  public Identifiers identifiers() {
    return identifiers;
  }

  /** Returns the product name and version. */
  public String product() {
    return product;
  }

  /**
   * Returns what the read role could change, one line per kind of privilege (empty when it may
   * only read), as the database reported it at start-up.
   */
  public List<String> roleWrites() {
    return roleWrites;
  }

  /**
   * Makes a read connection clean before it goes back to the pool (see {@link SessionPins});
   * one that cannot be made clean is closed for good instead.
   */
  public void release(Connection c, boolean write) {
    boolean clean = SessionPins.reset(c, dialect, schema);
    try {
      if (clean) {
        c.close();
      } else {
        LOG.debug("evicting a connection that could not be reset");
        (write ? writes : reads).evictConnection(c);
      }
    } catch (SQLException | RuntimeException e) {
      LOG.debug("returning a connection failed", e);
    }
  }

  /** Closes a connection for good (its state is unknown, for example after a cancel). */
  public void evict(Connection c, boolean write) {
    try {
      c.rollback();
    } catch (SQLException | RuntimeException e) {
      LOG.debug("rollback before eviction failed", e);
    }
    (write ? writes : reads).evictConnection(c);
  }

  /** Returns true for the embedded sample database. */
  public boolean isSample() {
    return sampleName != null;
  }

  /** Returns the read-only pool. */
  public DataSource reads() {
    return reads;
  }

  /** Returns the write pool, or null when writes are not allowed. */
  public DataSource writes() {
    return writes;
  }

  /** Returns the connections in use in both pools. */
  public int activeConnections() {
    int active = reads.getHikariPoolMXBean() == null ? 0
        : reads.getHikariPoolMXBean().getActiveConnections();
    if (writes != null && writes.getHikariPoolMXBean() != null) {
      active += writes.getHikariPoolMXBean().getActiveConnections();
    }
    return active;
  }

  /** Returns {@code schema.table} quoted for SQL. */
  public String qualified(String table) {
    return identifiers.quote(schema) + "." + identifiers.quote(table);
  }

  @Override
  public void close() {
    reads.close();
    if (writes != null) {
      writes.close();
    }
    closeQuietly(keepAlive);
    if (sampleName != null) {
      // the last connection closed the database; its image would otherwise stay in memory
      SampleImage.delete(sampleName);
    }
    LOG.debug("database connections closed");
  }

  private static void closeQuietly(Connection c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (SQLException e) {
      LOG.debug("closing the keep-alive connection failed", e);
    }
  }
}
