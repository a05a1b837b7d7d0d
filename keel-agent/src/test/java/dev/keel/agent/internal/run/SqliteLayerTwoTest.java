package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.db.Database;
import dev.keel.agent.internal.sample.SampleData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * SQLite's engine-side layer holds on its own: statements the check would refuse, sent straight
 * to the runner, are refused by SQLite's own compiler (the EXPLAIN guard) and, below it, by how
 * the file is opened (read-only, {@code query_only}, no attached databases, no extensions),
 * and nothing changes in the file or beside it.
 */
class SqliteLayerTwoTest {

  static Path dir;
  static Path file;
  static Database db;
  static String before;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("keel-sqlite-layer-two-");
    file = dir.resolve("shop.db");
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file)) {
      c.setAutoCommit(false);
      SampleData.load(c);
    }
    before = checksum();
    db = Database.connect("jdbc:sqlite:" + file, null, null, null, AgentLimits.defaults(),
        false);
  }

  @AfterAll
  static void stop() throws Exception {
    if (db != null) {
      db.close();
    }
    assertThat(checksum()).as("the database file changed").isEqualTo(before);
    try (Stream<Path> list = Files.list(dir)) {
      assertThat(list.map(p -> p.getFileName().toString()).toList())
          .containsExactly("shop.db");
    }
  }

  static String checksum() throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
        .digest(Files.readAllBytes(file)));
  }

  @Test
  void writesThatBypassTheCheckAreRefusedBySqlite() {
    QueryRunner runner = new QueryRunner(db, AgentLimits.defaults());
    String[] writes = {
        "INSERT INTO regions VALUES (99, 'Atlantis') RETURNING id",
        "DELETE FROM orders WHERE id = 1 RETURNING id",
        "UPDATE orders SET status = 'lost' WHERE id = 2 RETURNING id",
        "REPLACE INTO regions VALUES (1, 'Atlantis') RETURNING id",
        "CREATE TABLE evil (id INTEGER)",
        "CREATE TEMP TABLE evil AS SELECT * FROM orders",
        "PRAGMA query_only = 0",
        "PRAGMA journal_mode = WAL",
        "PRAGMA writable_schema = 1",
        "ATTACH '" + dir + "/evil.db' AS evil",
        "VACUUM INTO '" + dir + "/copy.db'",
        "SELECT load_extension('/tmp/keel-evil.so')"};
    for (String sql : writes) {
      assertThatThrownBy(() -> runner.read(LayerTwoTest.Ctx.INSTANCE, sql, List.of(), 10))
          .as(sql).isInstanceOf(QueryFailedException.class)
          .hasMessageMatching("(Refused by the database|Refused before the database ran it|"
              + "The database refused the query).*");
    }
    // the driver compiles only the first statement of a text and never runs the rest
    assertThat(runner.read(LayerTwoTest.Ctx.INSTANCE, "SELECT 1; DELETE FROM orders",
        List.of(), 10).get("rowCount").asInt()).isEqualTo(1);
    JsonNode row = runner.read(LayerTwoTest.Ctx.INSTANCE, "SELECT (SELECT count(*) FROM "
        + "orders), (SELECT count(*) FROM regions), (SELECT status FROM orders WHERE id = 2)",
        List.of(), 1).get("rows").get(0);
    assertThat(row.get(0).asLong()).isEqualTo(2500);
    assertThat(row.get(1).asLong()).isEqualTo(5);
    assertThat(row.get(2).asString()).isNotEqualTo("lost");
  }

  @Test
  void theGuardHoldsSqlitesNameResolutionToTheCheckedTables() {
    QueryRunner runner = new QueryRunner(db, AgentLimits.defaults());
    try (Admission admission = runner.admit(LayerTwoTest.Ctx.INSTANCE)) {
      assertThatThrownBy(() -> runner.read(admission, LayerTwoTest.Ctx.INSTANCE,
          "SELECT * FROM audit_log", List.of(), 10, List.of("orders")))
          .hasMessageContaining("a table the check did not allow");
      assertThatThrownBy(() -> runner.read(admission, LayerTwoTest.Ctx.INSTANCE,
          "SELECT name FROM sqlite_schema", List.of(), 10, List.of("orders")))
          .hasMessageContaining("a table the check did not allow");
      assertThat(runner.read(admission, LayerTwoTest.Ctx.INSTANCE,
          "SELECT count(*) FROM orders WHERE customer_id = 1", List.of(), 10,
          List.of("orders")).get("rowCount").asInt()).isEqualTo(1);
    }
  }

  @Test
  void belowTheGuardTheReadConnectionItselfCannotWrite() throws Exception {
    // straight on a pooled read connection: no check, no guard
    try (Connection c = db.reads().getConnection(); Statement s = c.createStatement()) {
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM orders"))
          .isInstanceOf(SQLException.class).hasMessageContaining("readonly");
      assertThatThrownBy(() -> s.executeUpdate("CREATE TEMP TABLE evil (x)"))
          .isInstanceOf(SQLException.class);
      assertThatThrownBy(() -> s.execute("ATTACH '" + dir + "/evil.db' AS evil"))
          .isInstanceOf(SQLException.class).hasMessageContaining("too many attached");
      assertThatThrownBy(() -> s.executeQuery("SELECT load_extension('/tmp/keel-evil.so')"))
          .isInstanceOf(SQLException.class).hasMessageContaining("not authorized");
      assertThatThrownBy(() -> s.executeQuery("SELECT zeroblob(100000000)"))
          .isInstanceOf(SQLException.class).hasMessageContaining("too big");
      // query_only can be turned off by a statement, the read-only open cannot
      s.execute("PRAGMA query_only = 0");
      assertThatThrownBy(() -> s.executeUpdate("DELETE FROM orders"))
          .isInstanceOf(SQLException.class).hasMessageContaining("readonly");
      c.rollback();
      // such a connection is not reused
      db.release(c, false);
    }
    try (Connection c = db.reads().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("PRAGMA query_only")) {
      rs.next();
      assertThat(rs.getInt(1)).isEqualTo(1);
    }
  }

  @Test
  void theAgentRefusesInMemoryAndMissingFilesAndUriOptions() {
    for (String url : List.of("jdbc:sqlite::memory:", "jdbc:sqlite:", "jdbc:sqlite:"
        + dir + "/missing.db", "jdbc:sqlite:file:" + file + "?mode=rwc")) {
      assertThatThrownBy(() -> Database.connect(url, null, null, null, AgentLimits.defaults(),
          false)).as(url).isInstanceOf(IllegalStateException.class);
    }
    assertThat(Files.exists(dir.resolve("missing.db"))).isFalse();
  }
}
