package dev.keel.agent.internal.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.sample.SampleData;
import dev.keel.agent.internal.sql.Identifiers;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
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
  private final boolean sample;

  private Database(Dialect dialect, HikariDataSource reads, HikariDataSource writes,
      Connection keepAlive, String schema, boolean sample) throws SQLException {
    this.dialect = dialect;
    this.reads = reads;
    this.writes = writes;
    this.keepAlive = keepAlive;
    this.sample = sample;
    try (Connection c = reads.getConnection()) {
      DatabaseMetaData meta = c.getMetaData();
      this.product = meta.getDatabaseProductName() + " " + meta.getDatabaseProductVersion();
      Identifiers.Fold fold = meta.storesLowerCaseIdentifiers() ? Identifiers.Fold.LOWER
          : meta.storesUpperCaseIdentifiers() ? Identifiers.Fold.UPPER : Identifiers.Fold.NONE;
      this.identifiers = new Identifiers(fold, meta.getIdentifierQuoteString());
      String current = c.getSchema();
      this.schema = schema != null ? schema : current;
      c.rollback();
    }
    if (this.schema == null) {
      throw new IllegalArgumentException("the database has no current schema; pass --schema");
    }
  }

  /**
   * Creates the embedded H2 database with the sample dataset.
   *
   * @param writable whether a write pool is needed (writes were allowed)
   */
  public static Database sample(AgentLimits limits, boolean writable) {
    String url = "jdbc:h2:mem:keel_sample_" + SAMPLES.incrementAndGet()
        + ";DATABASE_TO_LOWER=TRUE";
    String adminPassword = secret();
    String readerPassword = secret();
    Connection keepAlive = null;
    try {
      // The first connection creates the database; holding it keeps the data alive while
      // pooled connections come and go.
      keepAlive = DriverManager.getConnection(url, "sa", adminPassword);
      SampleData.load(keepAlive);
      try (Statement s = keepAlive.createStatement()) {
        s.execute("CREATE USER keel_reader PASSWORD '" + readerPassword + "'");
        s.execute("GRANT SELECT ON SCHEMA public TO keel_reader");
      }
      HikariDataSource reads = pool("keel-agent-read", url, "keel_reader", readerPassword,
          limits.poolSize(), true, Dialect.H2);
      HikariDataSource writes = writable
          ? pool("keel-agent-write", url, "sa", adminPassword, 2, false, Dialect.H2) : null;
      return new Database(Dialect.H2, reads, writes, keepAlive, "public", true);
    } catch (SQLException | RuntimeException e) {
      closeQuietly(keepAlive);
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
    try {
      reads = pool("keel-agent-read", url, user, password, limits.poolSize(), true, dialect);
      HikariDataSource writes = writable
          ? pool("keel-agent-write", url, user, password, 2, false, dialect) : null;
      return new Database(dialect, reads, writes, null, schema, false);
    } catch (SQLException | RuntimeException e) {
      if (reads != null) {
        reads.close();
      }
      throw new IllegalStateException("cannot connect to " + redact(url) + ": "
          + e.getMessage(), e);
    }
  }

  private static HikariDataSource pool(String name, String url, String user, String password,
      int size, boolean readOnly, Dialect dialect) {
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
      config.addDataSourceProperty("ApplicationName", name);
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

  /** Returns true for the embedded sample database. */
  public boolean isSample() {
    return sample;
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
