package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the agent checks when it starts: that every read connection is pinned as it must be (a
 * JDBC URL that overrides a pin is refused, naming it), and what its role could change (every
 * kind of write privilege is named; a role made as docs/agent.md shows has none).
 */
class StartupChecksTest {

  @Test
  void aUrlThatOverridesAPinIsRefusedNamingIt() {
    String url = TestPostgres.get().database("keel_pins");
    assertThatThrownBy(() -> DatabaseAgent.builder().jdbcUrl(url + "?preferQueryMode=simple")
        .user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("preferQueryMode");
    assertThatThrownBy(() -> DatabaseAgent.builder().jdbcUrl(url
        + "?options=-c%20default_transaction_read_only%3Doff")
        .user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("default_transaction_read_only");
    assertThatThrownBy(() -> DatabaseAgent.builder()
        .jdbcUrl("jdbc:h2:mem:keel_pins_mode;MODE=MySQL;DATABASE_TO_LOWER=TRUE").user("sa")
        .build()).isInstanceOf(IllegalStateException.class).hasMessageContaining("MODE");
  }

  @Test
  void aRoleThatCanWriteIsNamedWithItsPrivileges() {
    String url = RedTeamDatabase.url("keel_role_writes");
    try (DatabaseAgent agent = DatabaseAgent.builder().jdbcUrl(url)
        .user(TestPostgres.AGENT_USER).password(TestPostgres.AGENT_PASSWORD).build()) {
      List<String> writes = agent.roleWrites();
      assertThat(String.join("\n", writes)).contains("INSERT on", "UPDATE on", "DELETE on",
          "TRUNCATE on", "public.secrets", "USAGE or UPDATE (nextval) on 1 sequence(s): "
              + "public.ticket_seq", "CREATE on schema(s): public", "TEMPORARY on the database");
    }
  }

  @Test
  void theReadOnlyRoleOfTheDocsHasNone() throws Exception {
    TestPostgres pg = TestPostgres.get();
    String url = pg.database("keel_role_reader");
    // the recipe of docs/agent.md, "A read-only role"
    try (Connection c = pg.superuser("keel_role_reader"); Statement s = c.createStatement()) {
      s.execute("DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
          + "'keel_reader') THEN CREATE ROLE keel_reader LOGIN PASSWORD 'reader'; END IF; END $$");
      s.execute("REVOKE ALL ON DATABASE keel_role_reader FROM PUBLIC");
      s.execute("GRANT CONNECT ON DATABASE keel_role_reader TO keel_reader");
      s.execute("REVOKE CREATE ON SCHEMA public FROM PUBLIC");
      s.execute("GRANT USAGE ON SCHEMA public TO keel_reader");
      s.execute("GRANT SELECT ON ALL TABLES IN SCHEMA public TO keel_reader");
      s.execute("ALTER ROLE keel_reader SET default_transaction_read_only = on");
    }
    try (DatabaseAgent agent = DatabaseAgent.builder().jdbcUrl(url).user("keel_reader")
        .password("reader").build()) {
      assertThat(agent.roleWrites()).isEmpty();
    }
  }

  @Test
  void theEmbeddedSamplesReaderMayOnlyReadAndAnH2AdministratorIsNamed() {
    try (DatabaseAgent agent = DatabaseAgent.builder().build()) {
      assertThat(agent.roleWrites()).isEmpty();
    }
    try (DatabaseAgent agent = DatabaseAgent.builder()
        .jdbcUrl("jdbc:h2:mem:keel_role_admin;DATABASE_TO_LOWER=TRUE").user("sa").build()) {
      assertThat(agent.roleWrites()).anyMatch(w -> w.contains("administrator"));
    }
  }
}
