package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.db.Database;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * The MariaDB session's own read-only layer holds on its own, through both drivers: writes sent
 * straight to the runner (the statement check bypassed) are refused by the server's read-only
 * transaction, by its one-statement prepare, or by missing privileges, and change nothing; a
 * statement that changes the session (a variable, a temporary table, the read-only setting
 * itself) leaves nothing behind for the next call on the same connection.
 */
class MariaDbLayerTwoTest {

  /** Returns a URL of the test MariaDB's layer-two database for a driver prefix. */
  static String url(String prefix) throws Exception {
    Class<?> support = Class.forName("dev.keel.agent.TestMariaDb");
    Method get = support.getDeclaredMethod("get");
    get.setAccessible(true);
    Object db = get.invoke(null);
    Class<?> driver = Class.forName("dev.keel.agent.TestMariaDb$Driver");
    Object which = null;
    for (Object d : driver.getEnumConstants()) {
      if (((Enum<?>) d).name().equals(prefix)) {
        which = d;
      }
    }
    Method database = support.getDeclaredMethod("database", String.class, driver);
    database.setAccessible(true);
    return (String) database.invoke(db, "keel_layer_two", which);
  }

  static Database connect(String driver, int poolSize) throws Exception {
    return Database.connect(url(driver), "keel_agent", "keel", null,
        AgentLimits.defaults().withPoolSize(poolSize), false);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"MARIADB", "MYSQL"})
  void writesThatBypassTheCheckAreRefusedByTheDatabase(String driver) throws Exception {
    try (Database db = connect(driver, 2)) {
      QueryRunner runner = new QueryRunner(db, AgentLimits.defaults());
      String[] writes = {
          "DELETE FROM orders WHERE id = 1",
          "UPDATE orders SET status = 'lost' WHERE id = 2",
          "INSERT INTO regions VALUES (99, 'Atlantis')",
          "REPLACE INTO regions VALUES (1, 'Atlantis')",
          "CREATE TABLE evil (id INTEGER)",
          "DROP TABLE audit_log",
          "SELECT 1; DELETE FROM orders WHERE id = 1",
          "SELECT * FROM orders INTO OUTFILE '/tmp/keel-evil-layer-two'",
          "SELECT * FROM orders WHERE id = 3 FOR UPDATE; UPDATE orders SET status = 'lost'"};
      for (String sql : writes) {
        assertThatThrownBy(() -> runner.read(LayerTwoTest.Ctx.INSTANCE, sql, List.of(), 10))
            .as(sql).isInstanceOf(QueryFailedException.class)
            .hasMessageMatching("(Refused by the database|Refused before the database ran it|"
                + "The database refused the query).*");
      }
      JsonNode row = runner.read(LayerTwoTest.Ctx.INSTANCE, "SELECT (SELECT count(*) FROM "
          + "orders), (SELECT count(*) FROM regions), (SELECT status FROM orders WHERE id = 2), "
          + "(SELECT name FROM regions WHERE id = 1), (SELECT count(*) FROM "
          + "information_schema.tables WHERE table_schema = DATABASE())", List.of(), 1)
          .get("rows").get(0);
      assertThat(row.get(0).asLong()).isEqualTo(2500);
      assertThat(row.get(1).asLong()).isEqualTo(5);
      assertThat(row.get(2).asString()).isNotEqualTo("lost");
      assertThat(row.get(3).asString()).isNotEqualTo("Atlantis");
      assertThat(row.get(4).asLong()).isEqualTo(7);
      assertThat(Files.exists(Path.of("/tmp/keel-evil-layer-two"))).isFalse();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"MARIADB", "MYSQL"})
  void aPooledConnectionIsResetBeforeItIsReused(String driver) throws Exception {
    try (Database db = connect(driver, 1)) {
      QueryRunner runner = new QueryRunner(db, AgentLimits.defaults());
      // each of these changes the one connection's session, if the server lets it
      for (String change : List.of("SET SESSION tx_read_only = 0",
          "SET SESSION sql_mode = ''", "SELECT @keel := 42", "USE mysql",
          "SET SESSION autocommit = 1",
          "CREATE TEMPORARY TABLE orders (id INTEGER)")) {
        try {
          runner.read(LayerTwoTest.Ctx.INSTANCE, change, List.of(), 1);
        } catch (QueryFailedException refused) {
          // refused outright is as good
        }
        JsonNode row = runner.read(LayerTwoTest.Ctx.INSTANCE, "SELECT @@session.tx_read_only, "
            + "@@session.sql_mode, @keel, DATABASE(), @@session.autocommit, "
            + "(SELECT count(*) FROM orders)", List.of(), 1).get("rows").get(0);
        assertThat(row.get(0).asLong()).as(change).isEqualTo(1);
        assertThat(row.get(1).asString()).as(change).contains("ANSI_QUOTES")
            .contains("NO_BACKSLASH_ESCAPES");
        assertThat(row.get(2).isNull()).as(change).isTrue();
        assertThat(row.get(3).asString()).as(change).isEqualTo("keel_layer_two");
        assertThat(row.get(4).asLong()).as(change).isZero();
        assertThat(row.get(5).asLong()).as(change).isEqualTo(2500);
        assertThatThrownBy(() -> runner.read(LayerTwoTest.Ctx.INSTANCE,
            "DELETE FROM orders WHERE id = 5", List.of(), 1)).as(change)
            .isInstanceOf(QueryFailedException.class);
      }
    }
  }
}
