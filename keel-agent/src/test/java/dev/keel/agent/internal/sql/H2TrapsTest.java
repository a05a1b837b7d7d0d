package dev.keel.agent.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.internal.db.Dialect;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * On H2 the check refuses functions that build values of a size given as an argument unless
 * the sizes are numbers in the statement, at most a million characters in all, not nested;
 * the same statements pass on PostgreSQL, which cuts values on its own server.
 */
class H2TrapsTest {

  static final Set<String> VISIBLE = Set.of("customers", "products");
  final QueryCheck h2 = new QueryCheck(Dialect.H2,
      new Identifiers(Identifiers.Fold.LOWER, "\""), "public");
  final QueryCheck postgres = new QueryCheck(Dialect.POSTGRESQL,
      new Identifiers(Identifiers.Fold.LOWER, "\""), "public");

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT REPEAT('-', 20) AS line",
      "SELECT LPAD(CAST(id AS VARCHAR), 10, '0') FROM customers",
      "SELECT RPAD(name, 40) FROM customers",
      "SELECT SPACE(4) || name FROM customers",
      "SELECT REPEAT('x', 500000) || REPEAT('y', 500000)",
      "SELECT repeat FROM (SELECT 1 AS repeat) t",
      "SELECT SECURE_RAND(16)"})
  void smallWrittenSizesPass(String sql) {
    assertThat(h2.check(sql, VISIBLE, Set.of()).sql()).isNotEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT REPEAT('x', 100000000)",
      "SELECT REPEAT('ab', 600000)",
      "SELECT REPEAT('x', 600000) || REPEAT('x', 600000)",
      "SELECT REPEAT('*', id) FROM customers",
      "SELECT REPEAT(name, 3) FROM customers",
      "SELECT REPEAT('x', ?)",
      "SELECT SPACE(1000001)",
      "SELECT SPACE(10 * 1000)",
      "SELECT LPAD(name, 99999999999) FROM customers",
      "SELECT RPAD(name, -1) FROM customers",
      "SELECT \"REPEAT\"('x', 100000000)",
      "SELECT REPEAT(REPEAT('x', 1000), 1000)",
      "SELECT LPAD(SPACE(10), 20)",
      "SELECT SECURE_RAND(100000000)",
      "SELECT EXPAND(X'00')",
      "SELECT LENGTH(EXPAND(COMPRESS(X'00')))"})
  void computedHugeOrNestedSizesAreRefused(String sql) {
    assertThatThrownBy(() -> h2.check(sql, VISIBLE, Set.of()))
        .isInstanceOf(QueryRefusedException.class)
        .hasMessageContaining("embedded H2")
        .hasMessageContaining("agent's own memory");
  }

  @ParameterizedTest
  @ValueSource(strings = {"SELECT repeat('x', 100000000)", "SELECT repeat(name, 3) FROM customers",
      "SELECT lpad(name, 100000000) FROM customers"})
  void otherEnginesBoundValuesThemselves(String sql) {
    assertThat(postgres.check(sql, VISIBLE, Set.of()).sql()).isNotEmpty();
  }
}
