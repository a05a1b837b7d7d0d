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
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's connections: a pool for reads whose connections are read-only and never
 * auto-commit, and, only when writes are allowed, a small separate pool for approved writes.
 * For the embedded sample the read pool also logs in as a user that holds nothing but SELECT,
 * because H2 treats {@code Connection.setReadOnly} as a hint only.
 *
 * <p>A database given by URL is connected and checked at once, so a wrong password or a role
 * that cannot be pinned stops the agent before it listens. The sample is opened on first use
 * instead: it is ours (nothing about it can be misconfigured), and opening it loads a database
 * engine and its rows, about a quarter of what an idle {@code keel agent} would otherwise hold
 * in memory, for a server an MCP host may start and never call. What the agent needs before
 * that (the dialect, schema, identifier rules and product name) is known without opening, and
 * {@link #open} checks each against what the database says.
 */
public final class Database implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Database.class);
  private static final AtomicInteger SAMPLES = new AtomicInteger();

  /** What opening made: the pools, and what the read role could change. */
  private record Pools(HikariDataSource reads, HikariDataSource writes, Connection keepAlive,
      List<String> roleWrites) {}

  private final Dialect dialect;
  private final String schema;
  private final Identifiers identifiers;
  private final String product;
  private final boolean writable;
  /** The in-memory name of the sample, whose image is freed on close; null for others. */
  private final String sampleName;
  /** Opens the sample's pools; null for a database given by URL, whose pools come open. */
  private final Supplier<Pools> opener;
  private final Object lock = new Object();
  private volatile Pools pools;
  private boolean closed;

  /** A database given by URL: its pools are open, and it is checked here. */
  private Database(Dialect dialect, HikariDataSource reads, HikariDataSource writes,
      String schema) throws SQLException {
    this.dialect = dialect;
    this.schema = schema;
    this.writable = writes != null;
    this.sampleName = null;
    this.opener = null;
    try (Connection c = reads.getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      this.product = product(meta);
      this.identifiers = identifiers(meta);
      this.pools = new Pools(reads, writes, null, checked(c, dialect, schema));
    }
    warnAboutRoleWrites(pools.roleWrites());
  }

  /** The sample, opened by {@code opener} on first use. */
  private Database(String sampleName, boolean writable, Supplier<Pools> opener) {
    this.dialect = Dialect.H2;
    this.schema = SAMPLE_SCHEMA;
    this.identifiers = SAMPLE_IDENTIFIERS;
    this.product = sampleProduct();
    this.writable = writable;
    this.sampleName = sampleName;
    this.opener = opener;
  }

  /** The sample's schema, as H2 stores it with {@code DATABASE_TO_LOWER}. */
  static final String SAMPLE_SCHEMA = "public";
  /** How the sample spells identifiers: folded to lower case (its settings say so). */
  static final Identifiers SAMPLE_IDENTIFIERS = new Identifiers(Identifiers.Fold.LOWER, "\"");

  /** The product name and version H2's metadata gives, from the H2 on the class path. */
  static String sampleProduct() {
    return "H2 " + org.h2.engine.Constants.FULL_VERSION;
  }

  private static String product(DatabaseMetaData meta) throws SQLException {
    return meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
  }

  private static Identifiers identifiers(DatabaseMetaData meta) throws SQLException {
    Identifiers.Fold fold = meta.storesLowerCaseIdentifiers() ? Identifiers.Fold.LOWER
        : meta.storesUpperCaseIdentifiers() ? Identifiers.Fold.UPPER : Identifiers.Fold.NONE;
    return new Identifiers(fold, meta.getIdentifierQuoteString());
  }

  /**
   * Checks that a read connection can be pinned, and returns what its role could change.
   *
   * @throws IllegalStateException when it cannot be pinned
   */
  private static List<String> checked(Connection c, Dialect dialect, String schema)
      throws SQLException {
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
    return List.copyOf(found);
  }

  private static void warnAboutRoleWrites(List<String> roleWrites) {
    if (!roleWrites.isEmpty()) {
      LOG.warn("The agent's database role can change the database: {}. The agent refuses "
          + "writes itself, but give it a role that may only read (docs/agent.md shows how).",
          String.join("; ", roleWrites));
    }
  }

  /**
   * Returns the embedded H2 database with the sample dataset, which opens on first use.
   *
   * @param writable whether a write pool is needed (writes were allowed)
   */
  public static Database sample(AgentLimits limits, boolean writable) {
    String name = "keel_sample_" + SAMPLES.incrementAndGet();
    return new Database(name, writable, () -> openSample(name, limits, writable));
  }

  /**
   * Creates the sample in memory and opens its pools.
   *
   * @throws IllegalStateException when it cannot be created, or is not what the agent was told
   *     before it opened (the dialect's rules, the product) or its reader could write
   */
  private static Pools openSample(String name, AgentLimits limits, boolean writable) {
    String adminPassword = secret();
    String readerPassword = secret();
    Connection keepAlive = null;
    HikariDataSource reads = null;
    HikariDataSource writes = null;
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
      reads = pool("keel-agent-read", url, "keel_reader", readerPassword,
          limits.poolSize(), true, Dialect.H2, SAMPLE_SCHEMA, limits);
      writes = writable ? pool("keel-agent-write", url, "sa", adminPassword, 2,
          false, Dialect.H2, SAMPLE_SCHEMA, limits) : null;
      List<String> roleWrites;
      try (Connection c = reads.getConnection()) {
        DatabaseMetaData meta = c.getMetaData();
        // told to the agent before this opened: say so if the database disagrees
        String found = product(meta) + ", identifiers " + identifiers(meta);
        String told = sampleProduct() + ", identifiers " + SAMPLE_IDENTIFIERS;
        if (!found.equals(told)) {
          throw new IllegalStateException("the sample is " + found + ", not " + told);
        }
        roleWrites = checked(c, Dialect.H2, SAMPLE_SCHEMA);
      }
      if (!roleWrites.isEmpty()) {
        throw new IllegalStateException("the sample's reader could change the database: "
            + String.join("; ", roleWrites));
      }
      return new Pools(reads, writes, keepAlive, roleWrites);
    } catch (SQLException | RuntimeException e) {
      if (reads != null) {
        reads.close();
      }
      if (writes != null) {
        writes.close();
      }
      closeQuietly(keepAlive);
      SampleImage.delete(name);
      throw new IllegalStateException("cannot create the sample database: " + e.getMessage(), e);
    }
  }

  /**
   * Returns the pools, opening the sample on the first call.
   *
   * @throws IllegalStateException when the sample cannot be opened, or this was closed
   */
  private Pools open() {
    Pools open = pools;
    if (open != null) {
      return open;
    }
    synchronized (lock) {
      if (closed) {
        throw new IllegalStateException("the database " + (isSample() ? "sample " : "")
            + "was closed");
      }
      if (pools == null) {
        pools = opener.get();
        LOG.debug("opened the sample database {}", sampleName);
      }
      return pools;
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
      return new Database(dialect, reads, writes, exposed);
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
   * only read), as the database reported it when its pools opened. The sample's reader is made
   * with SELECT alone and checked when the sample opens (which refuses to open otherwise), so
   * before it opens the answer is empty without opening it.
   */
  public List<String> roleWrites() {
    Pools open = pools;
    return open == null ? List.of() : open.roleWrites();
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
        pool(write).evictConnection(c);
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
    pool(write).evictConnection(c);
  }

  private HikariDataSource pool(boolean write) {
    return write ? open().writes() : open().reads();
  }

  /** Returns true once the pools are open (a database given by URL is open from the start). */
  boolean isOpen() {
    return pools != null;
  }

  /** Returns true for the embedded sample database. */
  public boolean isSample() {
    return sampleName != null;
  }

  /** Returns true when writes were allowed, so {@link #writes} has a pool (without opening). */
  public boolean allowsWrites() {
    return writable;
  }

  /**
   * Returns the read-only pool, opening the sample on first use.
   *
   * @throws IllegalStateException when the sample cannot be opened, or this was closed
   */
  public DataSource reads() {
    return open().reads();
  }

  /**
   * Returns the write pool, or null when writes are not allowed; opens the sample on first use.
   *
   * @throws IllegalStateException when the sample cannot be opened, or this was closed
   */
  public DataSource writes() {
    return writable ? open().writes() : null;
  }

  /** Returns the connections in use in both pools (none before the sample opened). */
  public int activeConnections() {
    Pools open = pools;
    if (open == null) {
      return 0;
    }
    int active = open.reads().getHikariPoolMXBean() == null ? 0
        : open.reads().getHikariPoolMXBean().getActiveConnections();
    if (open.writes() != null && open.writes().getHikariPoolMXBean() != null) {
      active += open.writes().getHikariPoolMXBean().getActiveConnections();
    }
    return active;
  }

  /** Returns {@code schema.table} quoted for SQL. */
  public String qualified(String table) {
    return identifiers.quote(schema) + "." + identifiers.quote(table);
  }

  @Override
  public void close() {
    Pools open;
    synchronized (lock) {
      closed = true;
      open = pools;
    }
    if (open == null) {
      LOG.debug("database closed before it was opened");
      return;
    }
    open.reads().close();
    if (open.writes() != null) {
      open.writes().close();
    }
    closeQuietly(open.keepAlive());
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
