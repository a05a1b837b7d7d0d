package dev.keel.agent.internal.sample;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sample dataset is realistic in size and the same on every run. */
class SampleDataTest {

  static Map<String, String> fingerprint(String name) throws SQLException {
    try (Connection c = DriverManager.getConnection("jdbc:h2:mem:" + name
        + ";DATABASE_TO_LOWER=TRUE", "sa", "")) {
      SampleData.load(c);
      return fingerprint(c);
    }
  }

  /** Rows and a hash of every value of each sample table, in key order. */
  static Map<String, String> fingerprint(Connection c) throws SQLException {
    Map<String, String> result = new LinkedHashMap<>();
    try (Statement s = c.createStatement()) {
      for (String table : SampleData.TABLES) {
        try (ResultSet rs = s.executeQuery("SELECT * FROM " + table + " ORDER BY 1, 2")) {
          long rows = 0;
          long hash = 17;
          int columns = rs.getMetaData().getColumnCount();
          while (rs.next()) {
            rows++;
            for (int i = 1; i <= columns; i++) {
              hash = hash * 31 + String.valueOf(rs.getObject(i)).hashCode();
            }
          }
          result.put(table, rows + "/" + hash);
        }
      }
    }
    return result;
  }

  @Test
  void theSampleIsAFewThousandRelatedRowsAndTheSameEveryTime() throws SQLException {
    Map<String, String> first = fingerprint("sample_a");
    Map<String, String> second = fingerprint("sample_b");
    assertThat(first).isEqualTo(second);
    assertThat(first.get("customers")).startsWith(SampleData.CUSTOMERS + "/");
    assertThat(first.get("orders")).startsWith(SampleData.ORDERS + "/");
    long total = first.values().stream().mapToLong(v -> Long.parseLong(v.split("/")[0])).sum();
    assertThat(total).isBetween(5_000L, 20_000L);
  }
}
