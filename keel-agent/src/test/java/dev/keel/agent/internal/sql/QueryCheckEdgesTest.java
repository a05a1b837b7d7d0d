package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.internal.db.Dialect;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The statement check at its edges, found by mutation testing (docs/reliability.md): the last
 * character and the last level of nesting it takes, what the engine's function and operator
 * judge is asked, the types a cast may name, and the WITH queries it renames.
 */
class QueryCheckEdgesTest {

  static final Set<String> VISIBLE = Set.of("customers", "orders", "employees");
  static final Set<String> RESTRICTED = Set.of("employees");

  final List<String> asked = new ArrayList<>();
  final QueryCheck check = new QueryCheck(Dialect.POSTGRESQL,
      new Identifiers(Identifiers.Fold.LOWER, "\""), "public", new FunctionJudge() {
        @Override
        public String refusal(String schema, String name) {
          asked.add("function " + schema + "." + name);
          return name.equals("refused_fn") ? "refused by the engine's catalog" : null;
        }

        @Override
        public String operatorRefusal(String schema, String operator) {
          asked.add("operator " + schema + "." + operator);
          return operator.equals("@@@") ? "operator refused by the engine's catalog" : null;
        }
      });

  CheckedQuery ok(String sql) {
    return check.check(sql, VISIBLE, RESTRICTED);
  }

  /**
   * Runs the check and says whether it found the statement too deep; any other outcome (the
   * statement passes, or the parser after the depth check cannot read it) is not.
   */
  boolean tooDeep(String sql) {
    try {
      check.check(sql, VISIBLE, RESTRICTED);
      return false;
    } catch (StatementTooDeepException e) {
      return true;
    } catch (QueryRefusedException e) {
      return false;
    }
  }

  String refusal(String sql) {
    try {
      check.check(sql, VISIBLE, RESTRICTED);
    } catch (QueryRefusedException e) {
      return e.getMessage();
    }
    throw new AssertionError("not refused: " + sql);
  }

  @Test
  void aQueryOfExactlyTheLimitIsCheckedAndOneCharacterMoreIsRefused() {
    String head = "SELECT 1 /*";
    String atLimit = head + "x".repeat(QueryCheck.MAX_SQL_CHARS - head.length() - 2) + "*/";
    assertThat(atLimit).hasSize(QueryCheck.MAX_SQL_CHARS);
    assertThat(ok(atLimit).sql()).startsWith("SELECT 1");
    String over = head + "x".repeat(QueryCheck.MAX_SQL_CHARS - head.length() - 1) + "*/";
    assertThat(refusal(over)).contains("longer than " + QueryCheck.MAX_SQL_CHARS);
  }

  @Test
  void nestingUpToTheLimitPassesAndOneLevelMoreIsTooDeep() {
    int max = QueryCheck.MAX_NESTING;
    assertThatCode(() -> ok("SELECT " + "(".repeat(max) + "1" + ")".repeat(max)))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> ok("SELECT " + "(".repeat(max + 1) + "1" + ")".repeat(max + 1)))
        .isInstanceOf(StatementTooDeepException.class);
  }

  @Test
  void closedLevelsDoNotCount() {
    int many = QueryCheck.MAX_NESTING + 50;
    assertThatCode(() -> ok("SELECT " + "(1) + ".repeat(many) + "1"))
        .doesNotThrowAnyException();
    assertThatCode(() -> ok("SELECT " + "CASE WHEN true THEN 1 END + ".repeat(many) + "1"))
        .doesNotThrowAnyException();
  }

  @Test
  void caseOpensALevelLikeAParenthesis() {
    int max = QueryCheck.MAX_NESTING;
    assertThatThrownBy(() -> ok("SELECT " + "CASE WHEN true THEN ".repeat(max + 1) + "1"
        + " END".repeat(max + 1))).isInstanceOf(StatementTooDeepException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"NOT ", "- ", "+ ", "~ ", "EXISTS ", "PRIOR "})
  void aRunOfPrefixOperatorsPastTheLimitIsTooDeep(String prefix) {
    assertThatThrownBy(() -> ok("SELECT " + prefix.repeat(QueryCheck.MAX_NESTING + 1) + "1"))
        .isInstanceOf(StatementTooDeepException.class);
  }

  @Test
  void aRunOfPrefixOperatorsAtTheLimitIsNotTooDeep() {
    // the parser may not read a hundred signs; the depth check must let them through to it
    assertThat(tooDeep("SELECT " + "- ".repeat(QueryCheck.MAX_NESTING) + "1")).isFalse();
    assertThat(tooDeep("SELECT " + "NOT ".repeat(QueryCheck.MAX_NESTING) + "true")).isFalse();
  }

  @Test
  void prefixOperatorsAndOpenLevelsAddUp() {
    int half = QueryCheck.MAX_NESTING / 2;
    assertThatThrownBy(() -> ok("SELECT " + "(".repeat(half) + "- ".repeat(half + 1) + "1"
        + ")".repeat(half))).isInstanceOf(StatementTooDeepException.class);
    // a run ends at the first token that is not a prefix operator
    assertThat(tooDeep("SELECT " + "- ".repeat(half) + "(1) + " + "- ".repeat(half + 1)
        + "1")).isFalse();
  }

  @Test
  void catalogTypesAreRefusedByName() {
    assertThat(refusal("SELECT 'customers'::regclass"))
        .isEqualTo("Catalog types such as regclass are not allowed");
  }

  @Test
  void theEngineJudgeIsAskedWithTheFunctionsSchemaAsWritten() {
    ok("SELECT lower(name), pg_catalog.upper(name), \"Odd\".\"Mixed\"(1) FROM customers");
    assertThat(asked).contains("function null.lower", "function pg_catalog.upper",
        "function Odd.Mixed");
    assertThat(refusal("SELECT refused_fn(1)")).isEqualTo("refused by the engine's catalog");
    assertThat(refusal("SELECT public.refused_fn(1)"))
        .isEqualTo("refused by the engine's catalog");
  }

  @Test
  void theEngineJudgeIsAskedAboutOperatorsWithTheirSchemaOnlyInsideOperator() {
    // the parser does not read OPERATOR(...); the judge has been asked before it runs
    tooDeep("SELECT 1 + 2, 3 OPERATOR(pg_catalog.*) 4, x.* FROM customers x");
    tooDeep("SELECT 3 OPERATOR(\"PG_Catalog\".+) 4");
    assertThat(asked).contains("operator null.+", "operator pg_catalog.*",
        "operator PG_Catalog.+");
    assertThat(asked).noneMatch(a -> a.startsWith("operator null.::"));
    assertThat(refusal("SELECT 'a' @@@ 'b'")).isEqualTo("operator refused by the engine's catalog");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT CAST(1 AS integer)",
      "SELECT CAST((1 + 2) AS integer)",
      "SELECT CAST(coalesce(1, 2) AS pg_catalog.int4)",
      "SELECT 1::integer, '1'::pg_catalog.int8, date '2026-01-01'",
      "SELECT CAST(ROW(1, 'a') AS customers)",
      "SELECT CAST(ROW(1, 'a') AS public.customers)"})
  void castsToBuiltInTypesAndWholeTablesPass(String sql) {
    assertThatCode(() -> ok(sql)).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT CAST(1 AS employees)",
      "SELECT CAST(1 AS public.secrets)",
      "SELECT CAST(cast(1 AS integer) AS secrets)",
      "SELECT 1::other.int4",
      "SELECT CAST(ROW(1, 'a') AS other.customers)",
      "SELECT CAST(ROW(1, 'a') AS public.employees)",
      "SELECT secrets '(1)'"})
  void castsToAnythingElseAreRefusedAlike(String sql) {
    assertThat(refusal(sql)).isEqualTo("Casts and typed literals may name only built-in types "
        + "(and the row types of tables you may read whole)");
  }

  @Test
  void withQueriesAreRenamedFreshlyEachTime() {
    String sql = "WITH a (x) AS NOT MATERIALIZED (SELECT 1), b AS MATERIALIZED (SELECT x FROM a)"
        + " SELECT * FROM b JOIN a ON true";
    CheckedQuery first = ok(sql);
    CheckedQuery second = ok(sql);
    // two definitions and two mentions, each renamed
    assertThat(first.renamed()).hasSize(5);
    assertThat(first.renamed().get(0).text()).isNotEqualTo(second.renamed().get(0).text());
    assertThat(first.renamed()).extracting(CheckedQuery.Renamed::text)
        .allMatch(t -> t.startsWith("\"keel_with_"));
  }

  @Test
  void aNestedWithIsRenamedToo() {
    CheckedQuery q = ok("SELECT * FROM (WITH inner_q AS (SELECT 1 AS x) SELECT x FROM inner_q) s");
    assertThat(q.renamed()).hasSize(2);
    assertThat(q.renamed().get(0).begin()).isLessThan(q.renamed().get(1).begin());
  }

  @Test
  void narrowedAndRenamedMentionsComeInTextOrder() {
    CheckedQuery q = ok("WITH w AS (SELECT 1 AS x) SELECT * FROM employees e2, w, "
        + "(SELECT * FROM employees e1) s");
    assertThat(q.narrowed()).hasSize(2);
    assertThat(q.narrowed().get(0).alias()).isEqualTo("e2");
    assertThat(q.narrowed().get(0).begin()).isLessThan(q.narrowed().get(1).begin());
    assertThat(q.renamed()).isNotEmpty();
  }

  /**
   * A statement cut anywhere passes (some cuts are whole statements: {@code SELECT date} reads
   * a column) or is refused with a reason; no check may read past its end and crash.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT 1::", "SELECT CAST", "SELECT CAST(", "SELECT CAST(1 AS", "SELECT CAST(1 AS integer",
      "SELECT CAST((1) AS integer", "SELECT 1::pg_catalog.", "SELECT lower(", "SELECT x.",
      "SELECT 1 FOR", "SELECT NEXT", "SELECT 1 OPERATOR(", "SELECT 1 OPERATOR(pg_catalog.",
      "SELECT date", "SELECT a.b 'x'", "WITH", "WITH a AS", "WITH a AS (SELECT 1"})
  void aStatementCutShortIsRefusedNeverCrashed(String sql) {
    try {
      ok(sql);
    } catch (QueryRefusedException | StatementTooDeepException refused) {
      assertThat(refused.getMessage()).isNotBlank();
    }
  }

  @Test
  void aParseErrorSaysWhereButNotWhatItSaw() {
    String refusal = refusal("SELECT secret_column FROM WHERE");
    assertThat(refusal).startsWith("The statement could not be parsed as one SQL query (near "
        + "line 1, column ").endsWith(")");
    assertThat(refusal).doesNotContain("secret_column");
    // the parser reads the canonical one-line text, so the place is on line 1 of that
    assertThat(refusal("SELECT 1\nFROM customers\nWHERE WHERE")).contains("near line 1, column");
  }

  @Test
  void aTableStatementOfARestrictedTableIsNarrowedFromItsKeyword() {
    CheckedQuery q = ok("TABLE employees");
    assertThat(q.narrowed()).hasSize(1);
    CheckedQuery.Narrowed n = q.narrowed().get(0);
    assertThat(n.statement()).isTrue();
    assertThat(n.begin()).isZero();
    assertThat(n.end()).isEqualTo(q.sql().length());
    CheckedQuery qualified = ok("SELECT * FROM public.employees AS e");
    assertThat(qualified.narrowed().get(0).statement()).isFalse();
    assertThat(qualified.narrowed().get(0).alias()).isEqualTo("e");
    assertThat(qualified.sql().substring(qualified.narrowed().get(0).begin(),
        qualified.narrowed().get(0).end())).isEqualTo("public.employees AS e");
  }

  @Test
  void aStringAfterAQualifiedNameIsAnAliasNotATypedLiteral() {
    // "c.id 'n'" names a column and its alias; only a bare name before a string is a type
    assertThatCode(() -> ok("SELECT c.id 'n' FROM customers c")).doesNotThrowAnyException();
    assertThat(refusal("SELECT secrets 'n' FROM customers c"))
        .startsWith("Casts and typed literals");
  }

  /**
   * A qualified type cut off at its dot, the statement's last token: the walk along the
   * qualified name stops at the end of the statement, and the type is refused like any other
   * that is not built in (the check runs before the parser, so it sees such a statement).
   */
  @ParameterizedTest
  @ValueSource(strings = {"SELECT 1::pg_catalog.", "SELECT CAST(1 AS pg_catalog.)"})
  void aQualifiedTypeCutOffAtItsDotIsRefusedAsAnyTypeNotBuiltIn(String sql) {
    assertThat(refusal(sql)).startsWith("Casts and typed literals may name only built-in types");
  }

  /**
   * A typed literal is judged wherever it stands, its type's name at the very first token too:
   * the check runs before the parser, so its refusal is the one the caller reads.
   */
  @Test
  void aTypedLiteralAtTheFirstTokenIsJudgedToo() {
    assertThat(refusal("\"secrets\" '(1)'")).startsWith(
        "Casts and typed literals may name only built-in types");
  }
}
