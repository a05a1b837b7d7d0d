package dev.keel.agent.internal.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.db.Database;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * The optimizer's estimate for admission control, on the test MariaDB through both drivers: a
 * lookup by key is one row, a scan about the table, a cross join about the product, a join with
 * a subquery the sum of its selects.
 */
class MariaDbEstimateTest {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"MARIADB", "MYSQL"})
  void estimatesFollowThePlan(String driver) throws Exception {
    try (Database db = MariaDbLayerTwoTest.connect(driver, 1);
        Connection c = db.reads().getConnection()) {
      MySqlEstimate.Estimate key = MySqlEstimate.of(c, "SELECT * FROM orders WHERE id = ?",
          List.of(JsonNodeFactory.instance.numberNode(5)));
      assertThat(key.rows()).isEqualTo(1);
      assertThat(key.tables()).containsExactly("orders");

      MySqlEstimate.Estimate scan = MySqlEstimate.of(c, "SELECT * FROM orders", List.of());
      assertThat(scan.rows()).isBetween(1_500L, 4_000L);

      MySqlEstimate.Estimate cross = MySqlEstimate.of(c,
          "SELECT count(*) FROM orders a, orders b, regions r", List.of());
      assertThat(cross.rows()).isBetween(scan.rows() * scan.rows(),
          scan.rows() * scan.rows() * 5);
      assertThat(cross.tables()).hasSize(3);

      MySqlEstimate.Estimate sub = MySqlEstimate.of(c, "SELECT id FROM regions WHERE id IN "
          + "(SELECT region_id FROM customers WHERE country = 'DE') UNION SELECT 1", List.of());
      assertThat(sub.rows()).isGreaterThanOrEqualTo(5);

      assertThat(MySqlEstimate.of(c, "SELECT 1", List.of()).rows()).isZero();
    }
  }
}
