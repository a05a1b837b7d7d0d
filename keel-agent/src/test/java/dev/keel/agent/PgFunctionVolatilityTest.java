package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * On PostgreSQL the check judges every function a statement calls by its declared volatility
 * in {@code pg_proc} ({@code FunctionVolatility}): user-defined IMMUTABLE and STABLE functions
 * and built-in aggregates pass, a VOLATILE one (in any overload) is refused unless it is a
 * known harmless one, and the deny list still refuses its functions wherever they appear.
 */
class PgFunctionVolatilityTest {

  static AgentServer server;
  static AgentClient admin;

  @BeforeAll
  static void start() throws Exception {
    TestPostgres pg = TestPostgres.get();
    pg.database("keel_functions");
    try (Connection c = pg.superuser("keel_functions"); Statement s = c.createStatement()) {
      s.execute("CREATE FUNCTION public.keel_double(x integer) RETURNS integer IMMUTABLE "
          + "LANGUAGE sql AS 'SELECT x * 2'");
      s.execute("CREATE FUNCTION public.keel_region_count() RETURNS bigint STABLE "
          + "LANGUAGE sql AS 'SELECT count(*) FROM regions'");
      s.execute("CREATE TABLE public.keel_hits (n integer)");
      s.execute("CREATE FUNCTION public.keel_bump() RETURNS integer VOLATILE LANGUAGE sql "
          + "AS 'INSERT INTO keel_hits VALUES (1) RETURNING n'");
      // one harmless overload does not make the volatile one harmless
      s.execute("CREATE FUNCTION public.keel_mixed(x integer) RETURNS integer IMMUTABLE "
          + "LANGUAGE sql AS 'SELECT x'");
      s.execute("CREATE FUNCTION public.keel_mixed(x text) RETURNS text VOLATILE "
          + "LANGUAGE sql AS 'SELECT x'");
      // an operator runs a function: a VOLATILE one makes the operator volatile too
      s.execute("CREATE FUNCTION public.keel_plus(a integer, b integer) RETURNS integer "
          + "VOLATILE LANGUAGE sql AS 'SELECT a + b'");
      s.execute("CREATE OPERATOR public.&& (LEFTARG = integer, RIGHTARG = integer, "
          + "FUNCTION = public.keel_plus)");
      s.execute("CREATE FUNCTION public.keel_times(a integer, b integer) RETURNS integer "
          + "IMMUTABLE LANGUAGE sql AS 'SELECT a * b'");
      s.execute("CREATE OPERATOR public.@> (LEFTARG = integer, RIGHTARG = integer, "
          + "FUNCTION = public.keel_times)");
      s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO " + TestPostgres.AGENT_USER);
    }
    server = AgentServer.postgres("keel_functions", AgentLimits.defaults(), false);
    admin = server.client(AgentServer.ADMIN).initialize();
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  static JsonNode query(String sql) {
    return admin.call("query", "{\"sql\":\"" + sql.replace("\"", "\\\"") + "\"}");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT keel_double(21)",
      "SELECT public.keel_double(id) FROM regions ORDER BY 1",
      "SELECT keel_region_count()",
      "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) FROM orders",
      "SELECT string_agg(name, ', ' ORDER BY name) FROM regions",
      "SELECT date_trunc('month', ordered_at), count(*) FROM orders GROUP BY 1",
      "SELECT pg_catalog.upper(name) FROM regions",
      "SELECT random() < 2, clock_timestamp() IS NOT NULL, gen_random_uuid() IS NOT NULL",
      "SELECT pg_sleep(0)",
      "SELECT id FROM orders WHERE id IN (1, 2) AND EXISTS (SELECT 1 FROM regions)",
      "SELECT coalesce(nullif(name, ''), 'x') FROM regions"})
  void functionsThatOnlyReadPass(String sql) {
    JsonNode result = query(sql);
    assertThat(result.path("isError").asBoolean(false)).as("%s: %s", sql, result).isFalse();
  }

  @Test
  void theirResultsAreRight() {
    assertThat(AgentClient.structured(query("SELECT keel_double(21)")).at("/rows/0/0").asInt())
        .isEqualTo(42);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT keel_bump()",
      "SELECT * FROM keel_bump()",
      "SELECT r.id FROM regions r JOIN LATERAL (SELECT keel_bump() AS n) b ON true",
      "SELECT id FROM regions WHERE keel_bump() > 0",
      "SELECT (SELECT keel_bump()) FROM regions",
      "WITH x AS (SELECT keel_bump() AS n) SELECT n FROM x",
      "SELECT id FROM regions ORDER BY keel_bump()",
      "SELECT CAST(keel_bump() AS text)",
      "SELECT public.keel_bump()",
      "SELECT \"keel_bump\"()",
      "SELECT keel_mixed(1)",
      "SELECT keel_mixed('a')"})
  void volatileFunctionsAreRefusedByWhatTheyDeclare(String sql) {
    assertThat(AgentClient.error(query(sql))).as(sql)
        .contains("changes the database or its session (it is declared VOLATILE)");
  }

  @Test
  void aRefusedVolatileFunctionDidNotRun() throws Exception {
    AgentClient.error(query("SELECT keel_bump()"));
    try (Connection c = TestPostgres.get().superuser("keel_functions");
        Statement s = c.createStatement();
        var rs = s.executeQuery("SELECT count(*) FROM keel_hits")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT pg_read_file('postgresql.conf')",
      "SELECT (SELECT pg_read_file('postgresql.conf')) FROM regions",
      "SELECT id FROM regions ORDER BY pg_read_file('postgresql.conf')",
      "WITH f AS (SELECT pg_read_file('postgresql.conf') AS t) SELECT t FROM f",
      "SELECT CAST(pg_read_file('postgresql.conf') AS text)",
      "SELECT pg_read_file('postgresql.conf')::text",
      "SELECT dblink('dbname=postgres', 'SELECT 1')",
      "SELECT id FROM regions WHERE id IN (SELECT lo_import('/etc/passwd'))",
      "SELECT set_config('search_path', 'x', false)",
      "SELECT current_setting('data_directory')"})
  void theDenyListStillRefusesWhereverItsFunctionsAppear(String sql) {
    assertThat(AgentClient.error(query(sql))).as(sql).contains("is not allowed");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT 1 && 2", "SELECT id FROM regions WHERE (id && 1) > 0",
      "SELECT 1 OPERATOR(public.&&) 2"})
  void operatorsOfVolatileFunctionsAreRefused(String sql) {
    assertThat(AgentClient.error(query(sql))).as(sql)
        .contains("The operator && runs a function that changes the database");
  }

  @Test
  void otherOperatorsPass() {
    // (the statement must also be one JSqlParser reads: an operator symbol it knows)
    assertThat(AgentClient.structured(query("SELECT 6 @> 7, 'ab' || 'c', 3 * 4, "
        + "ARRAY[1, 2] @> ARRAY[1]")).at("/rows/0/0").asInt()).isEqualTo(42);
    assertThat(AgentClient.error(query("SELECT 1 OPERATOR(information_schema.+) 2")))
        .contains("Only operators of the schema public and of pg_catalog may be used");
  }

  @Test
  void functionsOfOtherSchemasAreRefused() {
    assertThat(AgentClient.error(query(
        "SELECT information_schema._pg_char_max_length(25, 10)")))
        .contains("Only functions of the schema public and of pg_catalog may be called");
  }

  @Test
  void aFunctionCreatedAfterStartIsJudgedToo() throws Exception {
    try (Connection c = TestPostgres.get().superuser("keel_functions");
        Statement s = c.createStatement()) {
      s.execute("CREATE FUNCTION public.keel_late() RETURNS integer VOLATILE LANGUAGE sql "
          + "AS 'SELECT 1'");
    }
    assertThat(AgentClient.error(query("SELECT keel_late()"))).contains("VOLATILE");
  }

  @Test
  void anUnknownFunctionIsLeftToPostgresql() {
    assertThat(AgentClient.error(query("SELECT keel_no_such_function(1)")))
        .containsIgnoringCase("does not exist");
  }
}
