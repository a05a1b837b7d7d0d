package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

/**
 * {@code PgMessageCap} on a real PostgreSQL connection: an error and a notice that quote
 * megabytes arrive cut, and the connection goes on serving statements, so the rewritten
 * messages kept the protocol in step.
 */
class PgMessageCapPostgresTest {

  static void install(Connection c) throws Exception {
    Method install = Class.forName("dev.keel.agent.internal.run.PgMessageCap")
        .getDeclaredMethod("install", Connection.class);
    install.setAccessible(true);
    install.invoke(null, c);
  }

  @Test
  void cutErrorsAndNoticesLeaveTheConnectionInStep() throws Exception {
    TestPostgres pg = TestPostgres.get();
    pg.database("keel_message_cap");
    try (Connection c = pg.superuser("keel_message_cap"); Statement s = c.createStatement()) {
      install(c);
      install(c);
      assertThatThrownBy(() -> s.executeQuery("SELECT CAST(repeat('x', 5000000) AS int)"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("invalid input syntax for type integer")
          .hasMessageContaining("...[cut: ")
          .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(20_000));
      s.execute("DO $$ BEGIN RAISE NOTICE '%', repeat('y', 3000000); END $$");
      SQLWarning notice = s.getWarnings();
      assertThat((Object) notice).isNotNull();
      assertThat(notice.getMessage()).startsWith("yyy").contains("...[cut: ")
          .hasSizeLessThan(20_000);
      try (ResultSet rs = s.executeQuery("SELECT 42, repeat('z', 3000000)")) {
        rs.next();
        // rows pass whole: the pool's maxResultBuffer is what bounds them
        assertThat(rs.getInt(1)).isEqualTo(42);
        assertThat(rs.getString(2)).hasSize(3_000_000);
      }
    }
  }
}
