package dev.keel.agent.internal.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.agent.AgentLimits;
import dev.keel.agent.internal.sample.SampleData;
import dev.keel.agent.internal.sql.Identifiers;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.h2.store.fs.FileUtils;
import org.junit.jupiter.api.Test;

/**
 * The agent's sample opens from the build's image on first use and goes away with the agent;
 * what the agent is told about it before it opens is what the database says once it is.
 */
class SampleDatabaseTest {

  @Test
  void theSampleOpensOnFirstUseAndIsWhatItWasSaidToBe() throws SQLException {
    try (Database db = Database.sample(AgentLimits.defaults(), false)) {
      // everything the agent asks while it is built, answered without opening
      assertThat(db.isSample()).isTrue();
      assertThat(db.dialect()).isEqualTo(Dialect.H2);
      assertThat(db.schema()).isEqualTo("public");
      assertThat(db.allowsWrites()).isFalse();
      assertThat(db.roleWrites()).isEmpty();
      assertThat(db.activeConnections()).isZero();
      assertThat(db.qualified("orders")).isEqualTo("\"public\".\"orders\"");
      String product = db.product();
      Identifiers identifiers = db.identifiers();
      assertThat(db.isOpen()).as("opened before its first use").isFalse();

      try (Connection c = db.reads().getConnection()) {
        assertThat(db.isOpen()).isTrue();
        DatabaseMetaData meta = c.getMetaData();
        assertThat(product).isEqualTo(meta.getDatabaseProductName() + " "
            + meta.getDatabaseProductVersion());
        assertThat(identifiers.fold()).isEqualTo(Identifiers.Fold.LOWER);
        assertThat(meta.storesLowerCaseIdentifiers()).isTrue();
        assertThat(identifiers.quote("a\"b")).isEqualTo(meta.getIdentifierQuoteString() + "a\"\"b"
            + meta.getIdentifierQuoteString());
        assertThat(c.getSchema()).isEqualTo(db.schema());
        try (Statement s = c.createStatement()) {
          assertThatThrownBy(() -> s.executeUpdate("DELETE FROM orders"))
              .as("the reader holds SELECT alone").isInstanceOf(SQLException.class);
        }
        c.rollback();
      }
      assertThat(db.writes()).as("no write pool unless writes are allowed").isNull();
      assertThat(db.roleWrites()).as("the reader holds SELECT alone").isEmpty();
    }
  }

  @Test
  void concurrentFirstUsesOpenTheSampleOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (Database db = Database.sample(AgentLimits.defaults(), true)) {
      List<Callable<DataSource>> firstUses = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        firstUses.add(i % 2 == 0 ? db::reads : db::writes);
      }
      List<DataSource> reads = new ArrayList<>();
      List<DataSource> writes = new ArrayList<>();
      List<Future<DataSource>> done = pool.invokeAll(firstUses);
      for (int i = 0; i < done.size(); i++) {
        (i % 2 == 0 ? reads : writes).add(done.get(i).get());
      }
      assertThat(reads).containsOnly(db.reads()).hasSize(4);
      assertThat(writes).containsOnly(db.writes()).hasSize(4);
      assertThat(db.reads()).isNotSameAs(db.writes());
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aSampleClosedBeforeItsFirstUseNeverOpens() {
    Database db = Database.sample(AgentLimits.defaults(), false);
    db.close();
    assertThat(db.isOpen()).isFalse();
    assertThatThrownBy(db::reads).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("was closed");
    assertThat(db.isOpen()).isFalse();
    db.close();
  }

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
