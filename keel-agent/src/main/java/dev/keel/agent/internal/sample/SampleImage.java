package dev.keel.agent.internal.sample;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.h2.store.fs.FileUtils;

/**
 * The sample database as H2 wrote it at build time, opened in memory instead of filled row by
 * row at every start.
 *
 * <p>Filling the sample with {@link SampleData#load} inserts about 10,000 rows through H2's
 * copy-on-write B-trees: 130 MB of garbage and most of a second on one core, which was more than
 * half of what {@code keel agent} spent before it listened, and enough allocation to touch the
 * whole young generation (so the idle process kept it resident). The build runs the same loader
 * once ({@link #main}, from the {@code process-classes} phase) into an H2 file that the jar
 * carries; at start the file is copied into H2's in-memory file system ({@code memFS:}) and
 * opened there: the same tables, rows, comments and indexes, still private to this JVM and
 * still writable when writes were allowed, for a 430 KB copy and the pages a query reads.
 *
 * <p>A jar without the image (a build that skipped the phase) or an H2 that cannot read it
 * (another version on the class path) is not an error: the caller loads the rows as before.
 */
public final class SampleImage {

  /** The image's name next to this class, in the jar. */
  static final String RESOURCE = "sample.mv.db";

  /**
   * The administrator's password in the image. It is known to anyone who reads the jar, so
   * {@link #open} replaces it before the database is reachable by anything else.
   */
  static final String BUILD_PASSWORD = "keel-sample-image";

  /** The settings of the build and of every connection: identifier case is part of the data. */
  static final String SETTINGS = ";DATABASE_TO_LOWER=TRUE";

  /**
   * What the administrator's first connection adds, for the whole database. Its trace file
   * would live in memory and grow with every statement that fails, so there is none; and
   * commits are stored as they happen, into memory, rather than by a writer thread that would
   * wake every second of an idle agent's life. Only an administrator may say either, which is
   * why the pool's URL ({@link #url}) does not.
   */
  static final String FIRST_OPEN = ";TRACE_LEVEL_FILE=0;WRITE_DELAY=0";

  private SampleImage() {}

  /**
   * Writes the image into a class output directory, where the jar picks it up.
   *
   * @param args the class output directory (Maven's {@code project.build.outputDirectory})
   */
  public static void main(String[] args) throws IOException, SQLException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: SampleImage <class output directory>");
    }
    Path target = Path.of(args[0]).resolve(SampleImage.class.getPackageName().replace('.', '/'))
        .resolve(RESOURCE);
    write(target);
  }

  /** Loads the sample into a new H2 file and moves the compacted file to {@code target}. */
  static void write(Path target) throws IOException, SQLException {
    Path dir = Files.createTempDirectory("keel-sample-image");
    try {
      String base = dir.resolve("sample").toAbsolutePath().toString();
      try (Connection c = connect("jdbc:h2:" + base + SETTINGS + FIRST_OPEN)) {
        c.setAutoCommit(false);
        SampleData.load(c);
        try (Statement s = c.createStatement()) {
          // closes the database and rewrites its file without the space the load left behind
          s.execute("SHUTDOWN COMPACT");
        }
      }
      Files.createDirectories(target.getParent());
      Files.move(Path.of(base + ".mv.db"), target, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      try (var files = Files.list(dir)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          Files.deleteIfExists(p);
        }
      }
      Files.deleteIfExists(dir);
    }
  }

  /** The JDBC URL of an image opened as {@code name}. */
  public static String url(String name) {
    return "jdbc:h2:" + memFile(name) + SETTINGS;
  }

  /** The JDBC URL of a sample that is not the image, its rows loaded by {@link SampleData}. */
  public static String loadedUrl(String name) {
    return "jdbc:h2:mem:" + name + SETTINGS;
  }

  /**
   * Copies the image into memory as {@code name}, opens it and sets the administrator's
   * password to {@code password}.
   *
   * @return the administrator's connection, which keeps the database open; null when there is
   *     no image or this H2 cannot open it (the caller then loads the sample itself)
   */
  public static Connection open(String name, String password) {
    String file = memFile(name) + ".mv.db";
    try (InputStream in = SampleImage.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        return null;
      }
      try (OutputStream out = FileUtils.newOutputStream(file, false)) {
        in.transferTo(out);
      }
    } catch (IOException e) {
      FileUtils.delete(file);
      throw new UncheckedIOException("cannot copy the sample image: " + e.getMessage(), e);
    }
    Connection c = null;
    try {
      c = connect(url(name) + FIRST_OPEN);
      try (Statement s = c.createStatement()) {
        s.execute("ALTER USER sa SET PASSWORD '" + password.replace("'", "''") + "'");
      }
      return c;
    } catch (SQLException e) {
      if (c != null) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // the database goes with the file below
        }
      }
      delete(name);
      return null;
    }
  }

  /** Frees the memory of an image opened as {@code name}, once its last connection closed. */
  public static void delete(String name) {
    // the one file there is: the trace file is off and the store locks without a lock file
    FileUtils.delete(memFile(name) + ".mv.db");
  }

  private static String memFile(String name) {
    if (!name.matches("[A-Za-z0-9_]+")) {
      throw new IllegalArgumentException("an image name is letters, digits and '_': " + name);
    }
    return "memFS:/" + name;
  }

  // The driver itself, not DriverManager: the build runs this inside Maven, whose class loader
  // DriverManager would not trust, and the agent avoids DriverManager anyway (JdbcDrivers).
  private static Connection connect(String url) throws SQLException {
    Properties p = new Properties();
    p.setProperty("user", "sa");
    p.setProperty("password", BUILD_PASSWORD);
    Connection c = new org.h2.Driver().connect(url, p);
    if (c == null) {
      throw new SQLException("H2 does not accept " + url);
    }
    return c;
  }
}
