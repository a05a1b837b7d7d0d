package dev.keel.agent;

import dev.keel.agent.internal.sample.SampleData;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real, throw-away MariaDB for the tests, set up by the tests themselves: it finds
 * {@code mariadbd} and {@code mariadb-install-db} (installing {@code mariadb-server} with
 * apt-get when they are missing and the tests run as root), creates a data directory in a
 * temporary directory, starts the server on 127.0.0.1 on a free port with its socket there,
 * and kills it and deletes the directory when the JVM exits. One server per JVM, shared by
 * every test. When MariaDB can be neither found nor installed, {@link #get()} throws: the tests
 * fail, they are never skipped.
 *
 * <p>Users: {@code keel_admin} may do anything (it loads the data); {@code keel_agent} may
 * read and write the sample databases' tables and create temporary tables, so in tests that
 * use it the agent's own read-only layers are what stops writes, not missing privileges;
 * {@code keel_reader} holds nothing but {@code SELECT}, the role docs/agent.md recommends.
 */
final class TestMariaDb {

  static final String AGENT_USER = "keel_agent";
  static final String AGENT_PASSWORD = "keel";
  static final String READER_USER = "keel_reader";
  static final String READER_PASSWORD = "reader";
  static final String ADMIN_USER = "keel_admin";
  static final String ADMIN_PASSWORD = "admin";

  /** The two drivers the agent supports for MySQL and MariaDB, by URL prefix. */
  enum Driver {
    MARIADB("jdbc:mariadb:"),
    MYSQL("jdbc:mysql:");

    final String prefix;

    Driver(String prefix) {
      this.prefix = prefix;
    }
  }

  private static TestMariaDb instance;

  private final Path dir;
  private final int port;
  private final Process server;
  private final Map<String, Boolean> databases = new ConcurrentHashMap<>();

  private TestMariaDb(Path dir, int port, Process server) {
    this.dir = dir;
    this.port = port;
    this.server = server;
  }

  /** Returns the running server, starting (and if need be installing) it first. */
  static synchronized TestMariaDb get() {
    if (instance == null) {
      try {
        instance = start();
      } catch (IOException | InterruptedException | SQLException e) {
        throw new IllegalStateException("MariaDB for the tests could not be started: "
            + e.getMessage(), e);
      }
    }
    return instance;
  }

  int port() {
    return port;
  }

  /**
   * Returns a URL, for {@code driver}, of a database holding the sample data, creating it on
   * first use.
   */
  synchronized String database(String name, Driver driver) {
    databases.computeIfAbsent(name, n -> {
      try (Connection c = admin(null); Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + n);
        s.execute("USE " + n);
        SampleData.load(c);
        s.execute("GRANT SELECT, INSERT, UPDATE, DELETE, CREATE TEMPORARY TABLES ON " + n
            + ".* TO " + AGENT_USER);
        s.execute("GRANT SELECT ON " + n + ".* TO " + READER_USER);
        s.execute("ANALYZE TABLE regions, customers, products, orders, order_items, "
            + "employees, audit_log");
        return true;
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the test database " + n, e);
      }
    });
    return url(name, driver);
  }

  String url(String database, Driver driver) {
    return driver.prefix + "//127.0.0.1:" + port + "/" + (database == null ? "" : database);
  }

  /** Returns an administrator's connection (MariaDB's driver), for checks the agent cannot. */
  Connection admin(String database) throws SQLException {
    return DriverManager.getConnection(url(database, Driver.MARIADB), ADMIN_USER,
        ADMIN_PASSWORD);
  }

  private static TestMariaDb start() throws IOException, InterruptedException, SQLException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path daemon = find("/usr/sbin/mariadbd", "/usr/sbin/mysqld");
    Path installDb = find("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db");
    Path client = find("/usr/bin/mariadb", "/usr/bin/mysql");
    if (daemon == null || installDb == null || client == null) {
      if (!root) {
        throw new IllegalStateException("MariaDB is not installed and these tests are not "
            + "running as root, so they cannot install it: run 'apt-get install -y "
            + "mariadb-server'");
      }
      install();
      daemon = find("/usr/sbin/mariadbd", "/usr/sbin/mysqld");
      installDb = find("/usr/bin/mariadb-install-db", "/usr/bin/mysql_install_db");
      client = find("/usr/bin/mariadb", "/usr/bin/mysql");
      if (daemon == null || installDb == null || client == null) {
        throw new IllegalStateException("apt-get installed mariadb-server but no mariadbd, "
            + "mariadb-install-db or mariadb client appeared");
      }
    }
    Path dir = Files.createTempDirectory("keel-mariadb-");
    Path data = dir.resolve("data");
    Path socket = dir.resolve("mariadb.sock");
    String user = System.getProperty("user.name");
    run(List.of(installDb.toString(), "--no-defaults", "--datadir=" + data, "--user=" + user,
        "--auth-root-authentication-method=socket", "--skip-test-db"), false);
    int port = freePort();
    List<String> command = new ArrayList<>(List.of(daemon.toString(), "--no-defaults",
        "--datadir=" + data, "--user=" + user, "--skip-networking=0",
        "--bind-address=127.0.0.1", "--port=" + port, "--socket=" + socket,
        "--pid-file=" + dir.resolve("mariadb.pid"), "--log-error=" + dir.resolve("error.log"),
        "--innodb-buffer-pool-size=64M", "--innodb-flush-log-at-trx-commit=0",
        "--skip-log-bin", "--max-connections=300", "--character-set-server=utf8mb4",
        "--skip-name-resolve"));
    Process server = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(dir.resolve("stdout.log").toFile()).start();
    TestMariaDb db = new TestMariaDb(dir, port, server);
    Runtime.getRuntime().addShutdownHook(new Thread(db::stop, "keel-test-mariadb-stop"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(socket)) {
      if (!server.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("mariadbd did not start:\n"
            + Files.readString(dir.resolve("error.log")));
      }
      Thread.sleep(100);
    }
    // root logs in through the socket only; it makes the users the tests connect as over TCP
    String users = "CREATE USER " + ADMIN_USER + "@'%' IDENTIFIED BY '" + ADMIN_PASSWORD
        + "'; GRANT ALL PRIVILEGES ON *.* TO " + ADMIN_USER + "@'%' WITH GRANT OPTION; "
        + "CREATE USER " + AGENT_USER + "@'%' IDENTIFIED BY '" + AGENT_PASSWORD + "'; "
        + "CREATE USER " + READER_USER + "@'%' IDENTIFIED BY '" + READER_PASSWORD + "';";
    for (int attempt = 0; ; attempt++) {
      if (run(List.of(client.toString(), "--no-defaults", "--socket=" + socket, "-u", "root",
          "-e", users), attempt < 50) == 0) {
        break;
      }
      Thread.sleep(200);
    }
    return db;
  }

  private void stop() {
    server.destroy();
    try {
      if (!server.waitFor(20, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      server.destroyForcibly();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("removing " + dir + " failed: " + e);
    }
  }

  private static Path find(String... candidates) {
    for (String c : candidates) {
      Path p = Path.of(c);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }

  private static void install() throws IOException, InterruptedException {
    List<String> install = List.of("apt-get", "install", "-y", "--no-install-recommends",
        "mariadb-server", "mariadb-client");
    if (run(install, true) != 0) {
      // the package lists may be missing on a fresh machine
      run(List.of("apt-get", "update"), false);
      run(install, false);
    }
  }

  /** Runs a command; fails on a non-zero exit unless {@code mayFail}. */
  private static int run(List<String> command, boolean mayFail)
      throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    Process p = pb.start();
    p.getOutputStream().close();
    byte[] output = p.getInputStream().readAllBytes();
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IllegalStateException("timed out: " + String.join(" ", command));
    }
    if (p.exitValue() != 0 && !mayFail) {
      throw new IllegalStateException(String.join(" ", command) + " exited with "
          + p.exitValue() + ":\n" + new String(output, StandardCharsets.UTF_8));
    }
    return p.exitValue();
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }
}
