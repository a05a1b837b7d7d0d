package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.internal.db.Dialect;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The statement check on its own, without a database: what passes, what is refused, and that
 * WITH queries are resolved by scope so a real table cannot hide behind one.
 */
class QueryCheckTest {

  static final Set<String> VISIBLE = Set.of("customers", "orders", "employees");
  static final Set<String> RESTRICTED = Set.of("employees");
  final QueryCheck check = new QueryCheck(Dialect.POSTGRESQL,
      new Identifiers(Identifiers.Fold.LOWER, "\""),
      "public");

  CheckedQuery ok(String sql) {
    return check.check(sql, VISIBLE, RESTRICTED);
  }

  String refusal(String sql) {
    try {
      check.check(sql, VISIBLE, RESTRICTED);
    } catch (QueryRefusedException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused: " + sql);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT * FROM customers",
      "select c.name, count(*) from customers c join orders o on o.customer_id = c.id "
          + "group by c.name order by 2 desc",
      "SELECT * FROM public.customers WHERE name = 'O''Brien; DROP TABLE x'",
      "WITH big AS (SELECT customer_id FROM orders) SELECT * FROM big",
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
          + "SELECT * FROM n",
      "VALUES (1, 'a'), (2, 'b')",
      "SELECT 1;",
      "SELECT pg_sleep(0.01)",
      "SELECT name FROM customers WHERE id IN (SELECT customer_id FROM orders) -- trailing",
      "SELECT \"name\" FROM \"customers\" /* a comment with DELETE in it */",
      "SELECT name FROM employees"})
  void readOnlyQueriesOnVisibleTablesPass(String sql) {
    assertThat(ok(sql).sql()).doesNotEndWith(";");
  }

  @Test
  void schemaQualifiedNamesResolveOnlyInTheAgentsSchema() {
    assertThat(ok("SELECT * FROM public.customers").tables()).containsExactly("customers");
    assertThat(refusal("SELECT * FROM information_schema.tables"))
        .isEqualTo(QueryRefusedException.TABLE_NOT_FOUND);
    assertThat(refusal("SELECT * FROM db.public.customers"))
        .isEqualTo(QueryRefusedException.TABLE_NOT_FOUND);
  }

  @Test
  void aWithQueryCannotHideARealTableOfTheSameName() {
    // Inside its own body a non-recursive WITH query's name is the real table.
    assertThat(refusal("WITH secret AS (SELECT * FROM secret) SELECT * FROM secret"))
        .isEqualTo(QueryRefusedException.TABLE_NOT_FOUND);
    // A WITH query inside a subquery is not in scope outside it.
    assertThat(refusal("SELECT * FROM secret, (WITH secret AS (SELECT 1) "
        + "SELECT * FROM secret) s")).isEqualTo(QueryRefusedException.TABLE_NOT_FOUND);
    // An alias is never a table source.
    assertThat(refusal("SELECT * FROM (SELECT 1) AS secret, secret"))
        .isEqualTo(QueryRefusedException.TABLE_NOT_FOUND);
    // Later siblings see earlier ones, so this one is fine.
    assertThat(ok("WITH a AS (SELECT 1 AS x), b AS (SELECT x FROM a) SELECT * FROM b")
        .tables()).isEmpty();
  }

  @Test
  void tablesInEveryClauseAreFound() {
    for (String sql : new String[] {
        "SELECT 1 FROM customers ORDER BY (SELECT count(*) FROM secret)",
        "SELECT 1 FROM customers GROUP BY (SELECT max(x) FROM secret)",
        "SELECT (SELECT max(x) FROM secret) FROM customers",
        "SELECT 1 FROM customers WHERE EXISTS (SELECT 1 FROM secret)",
        "SELECT 1 FROM customers c JOIN LATERAL (SELECT * FROM secret) s ON true",
        "SELECT * FROM (customers c JOIN secret s ON c.id = s.id)",
        "SELECT 1 FROM customers HAVING count(*) > (SELECT count(*) FROM secret)",
        "TABLE secret"}) {
      assertThat(refusal(sql)).as(sql).isEqualTo(QueryRefusedException.TABLE_NOT_FOUND);
    }
  }

  @Test
  void mentionsOfColumnRestrictedTablesAreLocatedWithTheirAliases() {
    String sql = "SELECT e.name, c.name FROM employees e JOIN customers c ON c.id = e.id "
        + "WHERE e.id IN (SELECT id FROM public.employees AS x)";
    CheckedQuery q = ok(sql);
    assertThat(q.narrowed()).hasSize(2);
    CheckedQuery.Narrowed first = q.narrowed().get(0);
    assertThat(sql.substring(first.begin(), first.end())).isEqualTo("employees e");
    assertThat(first.alias()).isEqualTo("e");
    CheckedQuery.Narrowed second = q.narrowed().get(1);
    assertThat(sql.substring(second.begin(), second.end())).isEqualTo("public.employees AS x");
    assertThat(second.alias()).isEqualTo("x");
    CheckedQuery bare = ok("SELECT * FROM \"employees\"");
    assertThat(bare.narrowed().get(0).alias()).isEqualTo("\"employees\"");
  }

  @Test
  void aWithQueryNamedLikeARestrictedTableIsTheCallersOwn() {
    assertThat(ok("WITH employees AS (SELECT 1 AS x) SELECT * FROM employees").narrowed())
        .isEmpty();
  }

  @Test
  void parametersAreCounted() {
    assertThat(ok("SELECT * FROM orders WHERE status = ? AND total > ?").parameters())
        .isEqualTo(2);
    assertThat(ok("SELECT '?' FROM orders").parameters()).isZero();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "DELETE FROM orders",
      "SELECT 1; DELETE FROM orders",
      "SELECT * INTO copy FROM orders",
      "SELECT * FROM orders FOR UPDATE",
      "SELECT * FROM orders FOR NO KEY UPDATE",
      "SELECT * FROM orders FOR SHARE",
      "WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d",
      "SELECT set_config('default_transaction_read_only', 'off', false)",
      "SELECT nextval('orders_id_seq')",
      "SELECT NEXT VALUE FOR seq",
      "SELECT pg_terminate_backend(1)",
      "SELECT pg_catalog.pg_read_file('/etc/passwd')",
      "SELECT \"pg_cancel_backend\"(1)",
      "SELECT query_to_xml('select * from secret', true, true, '')",
      "SELECT 'secret'::regclass",
      "SELECT to_regclass('secret')",
      "SELECT has_table_privilege('secret', 'select')",
      "SELECT E'\\'' ; DELETE FROM orders; --'",
      // found by LexerDifferentialTest: accepted as one statement, split by the JDBC driver
      "SELECT 1 /*/ ; SELECT 2; -- */",
      "SELECT 1$a$;$a$",
      "SELECT E'a'\n'\\' ; SELECT 2 --'",
      "SELECT FILE_READ('/etc/passwd')",
      "SELECT CSVWRITE('/tmp/x.csv', 'SELECT 1')",
      "SELECT lo_import('/etc/passwd')",
      "SELECT * FROM dblink('x', 'select 1') AS t(a int)",
      "CREATE TABLE t (id int)",
      "",
      "SELECT"})
  void hostileStatementsAreRefused(String sql) {
    assertThatThrownBy(() -> check.check(sql, VISIBLE, RESTRICTED))
        .isInstanceOf(QueryRefusedException.class);
  }

  @Test
  void stringsInEveryFormRunAsPlainLiteralsOfTheirValue() {
    assertThat(ok("SELECT $$ it's $$, $tag$ $$ $tag$").sql())
        .isEqualTo("SELECT ' it''s ', ' $$ '");
    assertThat(ok("SELECT U&'\\0041\\+01F600', U&'!0042' UESCAPE '!'").sql())
        .isEqualTo("SELECT 'A\uD83D\uDE00', 'B'");
    assertThat(ok("SELECT E'a''b\\nc', 'x'\n  'y' AS \"t\"\"q\"").sql())
        .isEqualTo("SELECT 'a''b\nc', 'xy' AS \"t\"\"q\"");
    assertThat(ok("SELECT 1 /* a /* nested */ comment */ + 2 -- and a line").sql())
        .isEqualTo("SELECT 1 + 2");
  }

  @Test
  void withQueriesAreRenamedSoNoEngineCanTakeThemForTables() {
    CheckedQuery q = ok("WITH employees AS (SELECT 1 AS x) SELECT e.x FROM employees e, "
        + "employees");
    String run = q.apply(n -> "NARROWED");
    assertThat(run).doesNotContain("employees AS (").contains("AS (SELECT 1 AS x)")
        .contains("\" AS e").contains("\" AS employees").startsWith("WITH \"keel_with_");
    assertThat(q.narrowed()).isEmpty();
    // a real table named like a WITH query elsewhere is still the real table
    CheckedQuery mixed = ok("SELECT * FROM employees, (WITH employees AS (SELECT 1 AS x) "
        + "SELECT * FROM employees) s");
    assertThat(mixed.narrowed()).hasSize(1);
    assertThat(mixed.apply(n -> "NARROWED")).startsWith("SELECT * FROM NARROWED, (WITH ");
  }

  @Test
  void castsAndTypedLiteralsNameOnlyBuiltInTypesOrWholeTables() {
    for (String sql : new String[] {"SELECT x::int, CAST(x AS VARCHAR(10)), "
        + "CAST(x AS DOUBLE PRECISION), x::timestamp with time zone, DATE '2024-01-01', "
        + "INTERVAL '1 day', TIMESTAMP WITH TIME ZONE '2024-01-01 00:00', x::pg_catalog.int4, "
        + "x::text[], NULL::orders, 'a' LIKE 'b' ESCAPE '!' FROM orders",
        "SELECT CASE WHEN name = 'x' THEN 'y' ELSE 'z' END, position('a' IN name), "
            + "trim(both 'x' from name), name AT TIME ZONE 'UTC' FROM customers"}) {
      ok(sql);
    }
    // a hidden table's row type answers exactly as a type that does not exist
    String hidden = refusal("SELECT NULL::secret");
    assertThat(refusal("SELECT NULL::no_such_type")).isEqualTo(hidden);
    for (String sql : new String[] {"SELECT (NULL::employees).salary",
        "SELECT CAST(NULL AS secret)", "SELECT secret '(1)'", "SELECT \"secret\" '(1)'",
        "SELECT json_populate_record(NULL::public.secret, '{}')", "SELECT NULL::public.orders2",
        "SELECT 1::"}) {
      assertThat(refusal(sql)).as(sql).startsWith(sql.endsWith("::") ? "A cast" : "Casts");
    }
  }

  @Test
  void overlongStatementsAreRefusedBeforeParsing() {
    String sql = "SELECT 1" + " ".repeat(QueryCheck.MAX_SQL_CHARS);
    assertThat(refusal(sql)).contains("longer than");
  }
}
