package dev.keel.agent.internal.db;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Locale;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Connections through the one driver a URL names, without {@link DriverManager}.
 *
 * <p>{@code DriverManager}'s first use loads and initializes every JDBC driver on the class path
 * (it reads them all through {@code ServiceLoader}), and HikariCP's own data source asks it for
 * its list even when told a driver's class. So an agent that serves only PostgreSQL loaded the
 * drivers of MariaDB, MySQL, SQLite and H2, and ran MySQL's abandoned-connection cleanup thread
 * for its whole life. The engines the agent knows by name are therefore reached through their
 * driver directly; any other URL still goes through {@code DriverManager}, which finds whatever
 * driver serves it.
 */
public final class JdbcDrivers {

  private JdbcDrivers() {}

  /** Opens a connection to {@code url} as {@code user}. */
  public static Connection connect(String url, String user, String password)
      throws SQLException {
    return connect(url, credentials(new Properties(), user, password));
  }

  /**
   * Returns a data source that opens every connection with {@code properties} (the driver's
   * settings) plus the user and password the caller passes.
   */
  static DataSource dataSource(String url, Properties properties) {
    return new Source(url, properties);
  }

  /**
   * The class of the driver for a URL, or null when the URL is not of an engine the agent knows
   * by name. {@code jdbc:mysql:} is MySQL's own driver: MariaDB's refuses that scheme unless
   * told otherwise, which is how {@code DriverManager} picks between the two as well.
   */
  static String driverClass(String url) {
    String lower = url.toLowerCase(Locale.ROOT);
    if (lower.startsWith("jdbc:postgresql:")) {
      return "org.postgresql.Driver";
    }
    if (lower.startsWith("jdbc:h2:")) {
      return "org.h2.Driver";
    }
    if (lower.startsWith("jdbc:mariadb:")) {
      return "org.mariadb.jdbc.Driver";
    }
    if (lower.startsWith("jdbc:mysql:")) {
      return "com.mysql.cj.jdbc.Driver";
    }
    if (lower.startsWith("jdbc:sqlite:")) {
      return "org.sqlite.JDBC";
    }
    return null;
  }

  private static Connection connect(String url, Properties properties) throws SQLException {
    Driver driver = driver(url);
    if (driver == null) {
      return DriverManager.getConnection(url, properties);
    }
    Connection c = driver.connect(url, properties);
    if (c == null) {
      // a driver answers null for a URL it does not take (a typo after the scheme)
      throw new SQLException("no suitable driver for " + Database.redact(url), "08001");
    }
    return c;
  }

  private static Driver driver(String url) {
    String name = driverClass(url);
    if (name == null) {
      return null;
    }
    try {
      return (Driver) Class.forName(name, true, JdbcDrivers.class.getClassLoader())
          .getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException | LinkageError e) {
      // not on the class path (a trimmed distribution): DriverManager may know another one
      return null;
    }
  }

  private static Properties credentials(Properties base, String user, String password) {
    Properties p = new Properties();
    p.putAll(base);
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    return p;
  }

  /** The pool's data source: the URL, the driver's settings, and nothing else. */
  private static final class Source implements DataSource {

    private final String url;
    private final Properties properties;

    Source(String url, Properties properties) {
      this.url = url;
      this.properties = new Properties();
      this.properties.putAll(properties);
    }

    @Override
    public Connection getConnection() throws SQLException {
      return connect(url, credentials(properties, null, null));
    }

    @Override
    public Connection getConnection(String user, String password) throws SQLException {
      return connect(url, credentials(properties, user, password));
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
      // the drivers log through their own loggers
    }

    // The drivers read their default login timeout from DriverManager (pgjdbc gives up a
    // connection attempt after it): set it there, as the pool's own data source does. Setting
    // it loads no driver.
    @Override
    public void setLoginTimeout(int seconds) {
      DriverManager.setLoginTimeout(seconds);
    }

    @Override
    public int getLoginTimeout() {
      return DriverManager.getLoginTimeout();
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException("no parent logger");
    }

    @Override
    public <T> T unwrap(Class<T> type) throws SQLException {
      if (type.isInstance(this)) {
        return type.cast(this);
      }
      throw new SQLException("not a wrapper for " + type.getName());
    }

    @Override
    public boolean isWrapperFor(Class<?> type) {
      return type.isInstance(this);
    }
  }
}
