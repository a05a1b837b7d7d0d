package dev.keel.agent.internal.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

class JdbcDriversTest {

  @Test
  void eachKnownSchemeNamesItsOwnDriver() {
    assertThat(JdbcDrivers.driverClass("jdbc:postgresql://h/db"))
        .isEqualTo("org.postgresql.Driver");
    assertThat(JdbcDrivers.driverClass("JDBC:H2:mem:x")).isEqualTo("org.h2.Driver");
    assertThat(JdbcDrivers.driverClass("jdbc:mariadb://h/db")).isEqualTo("org.mariadb.jdbc.Driver");
    assertThat(JdbcDrivers.driverClass("jdbc:mysql://h/db")).isEqualTo("com.mysql.cj.jdbc.Driver");
    assertThat(JdbcDrivers.driverClass("jdbc:sqlite:/tmp/x.db")).isEqualTo("org.sqlite.JDBC");
    assertThat(JdbcDrivers.driverClass("jdbc:derby:memory:x")).isNull();
  }

  @Test
  void aDataSourceOpensConnectionsWithItsPropertiesAndTheCallersCredentials() throws Exception {
    Properties settings = new Properties();
    // an H2 setting that shows in the session: the data source passed it to the driver
    settings.setProperty("MODE", "PostgreSQL");
    DataSource ds = JdbcDrivers.dataSource("jdbc:h2:mem:jdbc_drivers_test", settings);
    try (Connection c = ds.getConnection("sa", "")) {
      assertThat(c.getClass().getName()).startsWith("org.h2.");
      assertThat(c.getMetaData().getUserName()).isEqualToIgnoringCase("sa");
      try (var rs = c.createStatement().executeQuery(
          "SELECT SETTING_VALUE FROM INFORMATION_SCHEMA.SETTINGS WHERE SETTING_NAME = 'MODE'")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("PostgreSQL");
      }
    }
  }

  @Test
  void aUrlOfNoKnownEngineStillGoesThroughDriverManager() {
    assertThatThrownBy(() -> JdbcDrivers.connect("jdbc:nosuchengine:x", "u", "p"))
        .isInstanceOf(SQLException.class).hasMessageContaining("No suitable driver");
  }

  @Test
  void aUrlTheDriverCannotParseFailsWithoutItsPassword() {
    // pgjdbc repeats the whole URL in its message; the agent's message leaves out the password
    assertThatThrownBy(() -> Database.connect(
        "jdbc:postgresql://127.0.0.1:notaport/db?password=hunter2", "u", "p", null,
        dev.keel.agent.AgentLimits.defaults(), false))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("notaport/db?password=***")
        .hasMessageNotContaining("hunter2");
  }

  @Test
  void aUrlItsDriverDoesNotTakeFailsAsDriverManagerWouldHave() {
    // the scheme is matched without case, H2's driver takes only "jdbc:h2:" and answers null
    assertThatThrownBy(() -> JdbcDrivers.connect("JDBC:H2:mem:x;PASSWORD=hunter2", "u", "p"))
        .isInstanceOf(SQLException.class)
        .hasMessage("no suitable driver for JDBC:H2:mem:x;PASSWORD=***");
  }
}
