package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The agent reports what its MariaDB account could change: nothing for an account that holds
 * only SELECT, each kind of write for one that holds more.
 */
class MariaDbRolePrivilegesTest {

  @Test
  void aSelectOnlyAccountIsReportedAsReadingOnly() {
    TestMariaDb db = TestMariaDb.get();
    try (DatabaseAgent agent = DatabaseAgent.builder()
        .jdbcUrl(db.database("keel_roles", TestMariaDb.Driver.MARIADB))
        .user(TestMariaDb.READER_USER).password(TestMariaDb.READER_PASSWORD).build()) {
      assertThat(agent.roleWrites()).isEmpty();
    }
  }

  @Test
  void anAccountThatMayWriteIsNamedWithWhatItMayDo() {
    TestMariaDb db = TestMariaDb.get();
    for (TestMariaDb.Driver d : TestMariaDb.Driver.values()) {
      try (DatabaseAgent agent = DatabaseAgent.builder()
          .jdbcUrl(db.database("keel_roles", d))
          .user(TestMariaDb.AGENT_USER).password(TestMariaDb.AGENT_PASSWORD).build()) {
        assertThat(String.join("\n", agent.roleWrites())).as(d.name())
            .contains("INSERT", "UPDATE", "DELETE", "CREATE TEMPORARY TABLES")
            // quoted as the pinned ANSI_QUOTES mode quotes names
            .containsPattern("[`\"]keel_roles[`\"]\\.\\*");
      }
    }
  }
}
