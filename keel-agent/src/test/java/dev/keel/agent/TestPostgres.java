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
 * A real, throw-away PostgreSQL for the tests, set up by the tests themselves: it finds the
 * Debian binaries ({@code /usr/lib/postgresql/N/bin}), installs the {@code postgresql} package
 * with apt-get when they are missing (as root, non-interactively), runs {@code initdb} into a
 * temporary directory (as the {@code postgres} user when the tests run as root, since
 * PostgreSQL refuses to run as root), starts it on 127.0.0.1 on a free port with its socket in
 * that directory, and stops it and deletes the directory when the JVM exits. When PostgreSQL
 * can be neither found nor installed, {@link #get()} throws: the tests fail, they are never
 * skipped.
 *
 * <p>Databases come loaded with the agent's sample data; the role {@code keel_agent} (password
 * {@code keel}) may read and write their tables, so the agent's own read-only layers are what
 * stops writes in these tests, not missing privileges.
 */
final class TestPostgres {

  static final String AGENT_USER = "keel_agent";
  static final String AGENT_PASSWORD = "keel";

  private static TestPostgres instance;

  private final Path dir;
  private final Path bin;
  private final int port;
  private final boolean asPostgresUser;
  private final Map<String, String> databases = new ConcurrentHashMap<>();

  private TestPostgres(Path dir, Path bin, int port, boolean asPostgresUser) {
    this.dir = dir;
    this.bin = bin;
    this.port = port;
    this.asPostgresUser = asPostgresUser;
  }

  /** Returns the running server, starting (and if need be installing) it first. */
  static synchronized TestPostgres get() {
    if (instance == null) {
      try {
        instance = start();
      } catch (IOException | InterruptedException | SQLException e) {
        throw new IllegalStateException("PostgreSQL for the tests could not be started: "
            + e.getMessage(), e);
      }
    }
    return instance;
  }

  int port() {
    return port;
  }

  /** Returns a JDBC URL of a database holding the sample data, creating it on first use. */
  synchronized String database(String name) {
    return databases.computeIfAbsent(name, n -> {
      try {
        try (Connection c = superuser("postgres"); Statement s = c.createStatement()) {
          s.execute("CREATE DATABASE " + n);
        }
        try (Connection c = superuser(n); Statement s = c.createStatement()) {
          SampleData.load(c);
          s.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "
              + AGENT_USER);
          s.execute("ANALYZE");
        }
        return url(n);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create the test database " + n, e);
      }
    });
  }

  // --- analysis extensions (hypopg, pg_stat_statements): begin ---

  /** The schema the analysis extensions are created in, away from the exposed one. */
  static final String EXTENSION_SCHEMA = "keel_ext";

  /**
   * Returns a JDBC URL of a database holding the sample data and the extensions the analysis
   * tools use, {@code hypopg} and {@code pg_stat_statements}, in a schema of their own (so
   * their views are not tables of the exposed schema) that the agent's role may use.
   */
  synchronized String analysisDatabase(String name) {
    String url = database(name);
    try (Connection c = superuser(name); Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS " + EXTENSION_SCHEMA);
      s.execute("CREATE EXTENSION IF NOT EXISTS hypopg SCHEMA " + EXTENSION_SCHEMA);
      s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements SCHEMA " + EXTENSION_SCHEMA);
      s.execute("GRANT USAGE ON SCHEMA " + EXTENSION_SCHEMA + " TO " + AGENT_USER);
      // the texts of every role's statements, as a monitoring role would see them
      s.execute("GRANT pg_read_all_stats TO " + AGENT_USER);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot add the analysis extensions to " + name, e);
    }
    return url;
  }

  /** Installs the hypopg package of this PostgreSQL when it is missing (as root only). */
  private static void installHypopg(Path bin) throws IOException, InterruptedException {
    int version = version(bin);
    Path control = Path.of("/usr/share/postgresql/" + version + "/extension/hypopg.control");
    if (Files.exists(control) || !"root".equals(System.getProperty("user.name"))) {
      return;
    }
    List<String> install = List.of("apt-get", "install", "-y", "--no-install-recommends",
        "postgresql-" + version + "-hypopg");
    if (run(install, true) != 0) {
      run(List.of("apt-get", "update"), false);
      run(install, false);
    }
  }

  // --- analysis extensions: end ---

  String url(String database) {
    return "jdbc:postgresql://127.0.0.1:" + port + "/" + database;
  }

  /** Returns a superuser connection to {@code database}, for checks the agent cannot make. */
  Connection superuser(String database) throws SQLException {
    return DriverManager.getConnection(url(database), "postgres", "");
  }

  private static TestPostgres start() throws IOException, InterruptedException, SQLException {
    boolean root = "root".equals(System.getProperty("user.name"));
    Path bin = findBinaries();
    if (bin == null) {
      if (!root) {
        throw new IllegalStateException("PostgreSQL is not installed and these tests are not "
            + "running as root, so they cannot install it: run 'apt-get install -y postgresql'");
      }
      install();
      bin = findBinaries();
      if (bin == null) {
        throw new IllegalStateException("apt-get installed postgresql but no "
            + "/usr/lib/postgresql/*/bin/initdb appeared");
      }
    }
    installHypopg(bin);
    Path dir = Files.createTempDirectory("keel-pg-");
    Path data = dir.resolve("data");
    Path sockets = dir.resolve("sockets");
    Files.createDirectories(sockets);
    if (root) {
      run(List.of("chown", "-R", "postgres:postgres", dir.toString()), false);
    }
    int port = freePort();
    TestPostgres pg = new TestPostgres(dir, bin, port, root);
    pg.runAsOwner(List.of(bin.resolve("initdb").toString(), "-D", data.toString(),
        "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync"));
    pg.runAsOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", data.toString(),
        "-l", dir.resolve("postgres.log").toString(), "-w", "-t", "60", "-o",
        "-p " + port + " -k " + sockets + " -c listen_addresses=127.0.0.1 -c fsync=off "
            + "-c synchronous_commit=off -c full_page_writes=off -c max_connections=100 "
            + "-c shared_preload_libraries=pg_stat_statements",
        "start"));
    Runtime.getRuntime().addShutdownHook(new Thread(pg::stop, "keel-test-postgres-stop"));
    try (Connection c = pg.superuser("postgres"); Statement s = c.createStatement()) {
      s.execute("CREATE ROLE " + AGENT_USER + " LOGIN PASSWORD '" + AGENT_PASSWORD + "'");
    }
    return pg;
  }

  private void stop() {
    try {
      runAsOwner(List.of(bin.resolve("pg_ctl").toString(), "-D", dir.resolve("data").toString(),
          "-m", "immediate", "-w", "stop"));
    } catch (IOException | InterruptedException | RuntimeException e) {
      System.err.println("stopping the test PostgreSQL failed: " + e);
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("removing " + dir + " failed: " + e);
    }
  }

  private void runAsOwner(List<String> command) throws IOException, InterruptedException {
    List<String> full = new ArrayList<>();
    if (asPostgresUser) {
      full.addAll(List.of("runuser", "-u", "postgres", "--"));
    }
    full.addAll(command);
    run(full, false);
  }

  private static Path findBinaries() throws IOException {
    Path root = Path.of("/usr/lib/postgresql");
    if (!Files.isDirectory(root)) {
      return null;
    }
    try (Stream<Path> versions = Files.list(root)) {
      return versions.map(v -> v.resolve("bin"))
          .filter(b -> Files.isExecutable(b.resolve("initdb"))
              && Files.isExecutable(b.resolve("pg_ctl")))
          .max(Comparator.comparingInt(TestPostgres::version)).orElse(null);
    }
  }

  private static int version(Path bin) {
    try {
      return Integer.parseInt(bin.getParent().getFileName().toString().replaceAll("\\D.*", ""));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static void install() throws IOException, InterruptedException {
    List<String> install = List.of("apt-get", "install", "-y", "--no-install-recommends",
        "postgresql");
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
