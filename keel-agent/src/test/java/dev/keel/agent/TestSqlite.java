package dev.keel.agent;

import dev.keel.agent.internal.sample.SampleData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;

/**
 * SQLite database files for the tests: each {@link #create} makes a fresh directory and a
 * sample-shop file in it, loaded through an ordinary read-write connection (the driver's
 * bundled native library, a real SQLite), which is then closed, so the agent opens a file that
 * nobody else holds. The directory is deleted when the JVM exits.
 */
final class TestSqlite {

  final Path dir;
  final Path file;

  private TestSqlite(Path dir, Path file) {
    this.dir = dir;
    this.file = file;
  }

  /** Creates a directory holding {@code shop.db} with the sample data. */
  static TestSqlite create() {
    try {
      Path dir = Files.createTempDirectory("keel-sqlite-");
      Path file = dir.resolve("shop.db");
      try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
        c.setAutoCommit(false);
        SampleData.load(c);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
      return new TestSqlite(dir, file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot create the SQLite sample: " + e.getMessage(), e);
    }
  }

  /** The JDBC URL of the file. */
  String url() {
    return "jdbc:sqlite:" + file;
  }

  /** The SHA-256 of the database file's bytes. */
  String checksum() {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(Files.readAllBytes(file)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The names in the directory but SQLite's own side files of a reading connection
   * ({@code -shm}/{@code -wal} only exist in WAL mode, which the sample does not use).
   */
  List<String> files() {
    try (Stream<Path> list = Files.list(dir)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> list = Files.list(dir)) {
      for (Path p : list.toList()) {
        Files.deleteIfExists(p);
      }
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      // a temporary directory left behind is harmless
    }
  }
}
