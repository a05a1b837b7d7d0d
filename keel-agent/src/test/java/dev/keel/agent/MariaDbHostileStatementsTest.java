package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Hostile statements sent to the {@code query} tool over real HTTP as the {@code analyst}, on a
 * real MariaDB through both drivers, logged in as a user that may write: the generic cases of
 * {@link HostileStatementsTest} and MySQL's own traps (executable comments, files, variables,
 * locks, system schemas, backslash, {@code #} and {@code --} tricks). Each is refused, or
 * bounded; no answer names anything hidden; afterwards the data is exactly as before.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MariaDbHostileStatementsTest {

  /** MySQL's own traps. R: refused. B: runs, but bounded. */
  static final List<String> MYSQL_CASES = List.of(
      "R|SELECT /*! 1; DELETE FROM orders */ 1",
      "R|SELECT 1 /*!50000 , (SELECT salary FROM employees) */",
      "R|SELECT /*M! 1 */ 2",
      "R|SELECT /*+ MAX_EXECUTION_TIME(1) */ 1",
      "R|SELECT /* a /* b */ 1",
      "R|SELECT * FROM orders INTO OUTFILE '/tmp/keel-evil-out.csv'",
      "R|SELECT 'x' INTO DUMPFILE '/tmp/keel-evil-dump'",
      "R|SELECT id FROM orders LIMIT 1 INTO @v",
      "R|SELECT LOAD_FILE('/etc/passwd')",
      "R|SELECT CONVERT(LOAD_FILE('/etc/passwd') USING utf8mb4)",
      "R|SELECT SLEEP(5)",
      "R|SELECT BENCHMARK(100000000, MD5('x'))",
      "R|SELECT @@version",
      "R|SELECT @@global.read_only",
      "R|SELECT @a := 1",
      "R|SELECT @a",
      "R|SELECT id := 1 FROM orders",
      "R|SET SESSION tx_read_only = 0",
      "R|SET @a = 1",
      "R|SET sql_mode = ''",
      "R|SET STATEMENT sql_mode = '' FOR SELECT 1",
      "R|LOAD DATA INFILE '/etc/passwd' INTO TABLE regions",
      "R|LOAD XML INFILE '/etc/passwd' INTO TABLE regions",
      "R|HANDLER audit_log OPEN",
      "R|DO SLEEP(1)",
      "R|DO 1",
      "R|SELECT * FROM orders LOCK IN SHARE MODE",
      "R|SELECT * FROM orders FOR UPDATE SKIP LOCKED",
      "R|SELECT sys_exec('touch /tmp/keel-evil')",
      "R|SELECT sys_eval('id')",
      "R|SELECT GET_LOCK('x', 10)",
      "R|SELECT RELEASE_LOCK('x')",
      "R|SELECT IS_USED_LOCK('x')",
      "R|SELECT MASTER_POS_WAIT('log', 4)",
      "R|SELECT MASTER_GTID_WAIT('0-1-1', 1)",
      "R|SELECT LAST_INSERT_ID(5)",
      "R|SELECT NEXTVAL(orders)",
      "R|SELECT * FROM information_schema.tables",
      "R|SELECT * FROM INFORMATION_SCHEMA.COLUMNS WHERE table_name = 'audit_log'",
      "R|SELECT * FROM `information_schema`.`columns`",
      "R|SELECT * FROM mysql.user",
      "R|SELECT * FROM performance_schema.threads",
      "R|SELECT * FROM sys.version",
      "R|SELECT * FROM orders WHERE id = (SELECT count(*) FROM mysql.user)",
      "R|SELECT sys.format_bytes(1)",
      "R|SELECT keel_hostile.f()",
      "R|SELECT '\\'; DELETE FROM orders; -- '",
      "R|SELECT 'a\\' OR 1 = 1 -- '",
      "R|SELECT '\\\\'",
      "R|SELECT 'it''s'; DELETE FROM orders",
      "B|SELECT 1 # ; DELETE FROM orders",
      "R|SELECT 1 #\n; DELETE FROM orders",
      "B|SELECT 1 -- ; DELETE FROM orders",
      "B|SELECT 1 -- x\r; DELETE FROM orders",
      "R|SELECT 1 --x\n; DELETE FROM orders",
      "R|SELECT 1--1",
      "B|SELECT 1 - -1",
      "B|SELECT 1 --",
      "R|SELECT `audit_log`.* FROM `audit_log`",
      "R|SELECT * FROM `audit_log`",
      "R|SELECT * FROM `keel_hostile`.`audit_log`",
      "R|SELECT * FROM keel_hostile.audit_log",
      "R|SELECT * FROM `audit``log`",
      "R|SELECT `salary` FROM employees",
      "R|SELECT `e`.`salary` FROM `employees` `e`",
      "R|SELECT * FROM `orders` WHERE `id` = 1; DELETE FROM `orders`",
      // a name, however odd, is a name
      "B|SELECT * FROM `orders` `; DELETE FROM orders`",
      "B|SELECT `a``b` FROM (SELECT 1 AS `a``b`) x",
      "R|SELECT \"audit_log\".id FROM orders",
      "R|SELECT * FROM orders WHERE status = \"delivered\"",
      "B|SELECT * FROM orders WHERE status = 'delivered'",
      "R|SELECT _utf8mb4'x'",
      "R|SELECT _binary 'x'",
      "R|SELECT N'x'",
      "R|SELECT X'41'",
      "R|SELECT 0x41",
      "R|SELECT 0b1",
      "R|SELECT 1e",
      "R|SELECT orders.1id FROM orders",
      "R|SELECT 1 PROCEDURE ANALYSE()",
      "R|SELECT {fn now()}",
      "R|SELECT 'a' 'b'",
      "R|KILL QUERY 1",
      "R|SHOW GRANTS",
      "R|SHOW TABLES",
      "R|DESCRIBE audit_log",
      "R|EXPLAIN SELECT * FROM audit_log",
      "R|CREATE TEMPORARY TABLE orders (id INT)",
      "R|REPLACE INTO regions VALUES (1, 'x')",
      "R|INSERT IGNORE INTO regions VALUES (98, 'x')",
      "R|UPDATE orders SET status = 'lost' WHERE id = 1",
      "R|SELECT * FROM orders WHERE id = 1 UNION SELECT id, 1, 1, 1, 1 FROM audit_log",
      "R|START TRANSACTION READ WRITE",
      "R|XA START 'x'",
      "R|SELECT * FROM orders\u00a0WHERE id = 1",
      "R|SELECT 1\u0000; DELETE FROM orders",
      "B|SELECT repeat('x', 100000) AS x FROM orders",
      "B|SELECT id, status FROM orders ORDER BY id LIMIT 5");

  static final Map<TestMariaDb.Driver, AgentServer> SERVERS =
      new EnumMap<>(TestMariaDb.Driver.class);
  static final Map<TestMariaDb.Driver, AgentClient> ANALYSTS =
      new EnumMap<>(TestMariaDb.Driver.class);

  @BeforeAll
  static void start() {
    for (TestMariaDb.Driver d : TestMariaDb.Driver.values()) {
      AgentServer server = AgentServer.mariadb("keel_hostile", d, HostileStatementsTest.LIMITS,
          false);
      SERVERS.put(d, server);
      ANALYSTS.put(d, server.client(AgentServer.ANALYST).initialize());
    }
  }

  @AfterAll
  static void stop() {
    SERVERS.values().forEach(AgentServer::close);
  }

  static Stream<Arguments> cases() {
    List<String> all = new ArrayList<>();
    for (String c : HostileStatementsTest.CASES) {
      // MySQL has no dollar quotes: '$' is refused outright there
      all.add(c.startsWith("B|SELECT $$") ? "R" + c.substring(1) : c);
    }
    all.addAll(MYSQL_CASES);
    List<Arguments> out = new ArrayList<>();
    for (TestMariaDb.Driver d : TestMariaDb.Driver.values()) {
      for (String c : all) {
        out.add(Arguments.of(d, c.charAt(0), c.substring(2)));
      }
    }
    return out.stream();
  }

  @Order(1)
  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("cases")
  void hostileStatementIsRefusedOrBoundedAndNamesNothingHidden(TestMariaDb.Driver driver,
      char expected, String sql) {
    String arguments = "{\"sql\":" + JsonNodeFactory.instance.stringNode(sql) + "}";
    long started = System.nanoTime();
    JsonNode response = ANALYSTS.get(driver).request("tools/call",
        AgentClient.callParams("query", arguments));
    long millis = (System.nanoTime() - started) / 1_000_000;
    String text = response.toString();
    for (String hidden : AgentServer.HIDDEN_FROM_ANALYST) {
      if (!sql.toLowerCase(Locale.ROOT).contains(hidden) || expected == 'R') {
        assertThat(text.toLowerCase(Locale.ROOT)).as("the answer names %s", hidden)
            .doesNotContain(hidden);
      }
    }
    JsonNode result = response.get("result");
    assertThat(result).as(text).isNotNull();
    if (expected == 'R') {
      assertThat(result.path("isError").asBoolean(false)).as("refused: %s", text).isTrue();
    } else {
      JsonNode rows = AgentClient.structured(result);
      assertThat(rows.get("rowCount").asInt())
          .isLessThanOrEqualTo(HostileStatementsTest.LIMITS.maxRows());
      assertThat(text.length())
          .isLessThan((int) HostileStatementsTest.LIMITS.maxResultBytes() * 3);
    }
    assertThat(millis).isLessThan(10_000);
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void refusalsSayWhatTheMySqlFeatureWouldDo(TestMariaDb.Driver driver) {
    AgentClient analyst = ANALYSTS.get(driver);
    assertThat(error(analyst, "SELECT /*! 1 */ 2")).contains("Executable comments")
        .contains("run their content as SQL");
    assertThat(error(analyst, "SELECT * FROM orders INTO OUTFILE '/tmp/keel-evil-x'"))
        .contains("writes a file on the database server");
    assertThat(error(analyst, "SELECT LOAD_FILE('/etc/passwd')"))
        .contains("reads files on the database server");
    assertThat(error(analyst, "SELECT @@version")).contains("System variables");
    assertThat(error(analyst, "SELECT @a")).contains("User variables");
    assertThat(error(analyst, "SET sql_mode = ''")).contains("SET is a MySQL statement");
    assertThat(error(analyst, "SELECT 1 --x")).contains("two minus signs");
  }

  static String error(AgentClient analyst, String sql) {
    return AgentClient.error(analyst.call("query", "{\"sql\":"
        + JsonNodeFactory.instance.stringNode(sql) + "}"));
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void aLongStatementIsStoppedByTheStatementTimeout(TestMariaDb.Driver driver) {
    long started = System.nanoTime();
    String error = AgentClient.error(ANALYSTS.get(driver).call("query",
        "{\"sql\":\"SELECT count(*) FROM orders a, orders b, orders c\"}"));
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertThat(error).containsAnyOf("statement timeout", "timed out");
    assertThat(millis).isBetween(1_500L, 6_000L);
  }

  @Test
  @Order(2)
  void theDataIsUntouchedAfterwards() throws Exception {
    try (Connection c = TestMariaDb.get().admin("keel_hostile");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM orders), "
            + "(SELECT count(*) FROM regions), (SELECT count(*) FROM audit_log), "
            + "(SELECT count(*) FROM orders WHERE status = 'lost'), (SELECT count(*) FROM "
            + "information_schema.tables WHERE table_schema = 'keel_hostile')")) {
      rs.next();
      assertThat(rs.getLong(1)).isEqualTo(2500);
      assertThat(rs.getLong(2)).isEqualTo(5);
      assertThat(rs.getLong(3)).isEqualTo(300);
      assertThat(rs.getLong(4)).isZero();
      assertThat(rs.getLong(5)).isEqualTo(7);
    }
    for (String f : List.of("/tmp/keel-evil.csv", "/tmp/keel-evil-out.csv",
        "/tmp/keel-evil-dump", "/tmp/keel-evil", "/tmp/keel-evil-x")) {
      assertThat(Files.exists(Path.of(f))).as(f).isFalse();
    }
  }
}
