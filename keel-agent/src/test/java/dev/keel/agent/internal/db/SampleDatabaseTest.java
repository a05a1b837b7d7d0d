package dev.keel.agent.internal.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.sample.SampleData;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.h2.store.fs.FileUtils;
import org.junit.jupiter.api.Test;

/** The agent's sample opens from the build's image and goes away with the agent. */
class SampleDatabaseTest {

  @Test
  void theSampleIsOpenedFromTheImageAndFreedOnClose() throws SQLException {
    String url;
    try (Database db = Database.sample(AgentLimits.defaults(), true)) {
      try (Connection c = db.reads().getConnection()) {
        url = c.getMetaData().getURL();
        try (Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT count(*) FROM orders")) {
          rs.next();
          assertThat(rs.getInt(1)).isEqualTo(SampleData.ORDERS);
        }
        try (Statement s = c.createStatement()) {
          s.executeQuery("SELECT no_such_column FROM orders");
        } catch (SQLException expected) {
          // H2 would trace this failure to a file, and in memory that file only grows
        }
        c.rollback();
      }
      assertThat(FileUtils.exists(file(url).replace(".mv.db", ".trace.db"))).isFalse();
      assertThat(url).startsWith("jdbc:h2:memFS:/keel_sample_");
      // writes, where allowed, land in this copy
      try (Connection c = db.writes().getConnection(); Statement s = c.createStatement()) {
        assertThat(s.executeUpdate("DELETE FROM audit_log WHERE id = 1")).isEqualTo(1);
        c.commit();
      }
      assertThat(FileUtils.exists(file(url))).isTrue();
    }
    assertThat(FileUtils.exists(file(url))).as("the image copy is freed on close").isFalse();
  }

  private static String file(String url) {
    String path = url.substring("jdbc:h2:".length());
    return path.substring(0, path.indexOf(';') < 0 ? path.length() : path.indexOf(';'))
        + ".mv.db";
  }
}
