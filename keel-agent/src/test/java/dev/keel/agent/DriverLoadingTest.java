package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An agent that serves one engine loads that engine's JDBC driver and no other, read from the
 * class-loading log of a real agent process on a real PostgreSQL. Through {@code DriverManager}
 * it loaded every driver on the class path, and MySQL's started a cleanup thread in an agent
 * that never speaks to MySQL (found measuring start-up, issue 22).
 */
class DriverLoadingTest {

  @TempDir
  Path scratch;

  @Test
  void anAgentOnPostgresqlLoadsOnlyPostgresqlsDriver() throws Exception {
    String pg = TestPostgres.get().database("keel_drivers");
    Path log = scratch.resolve("classes.log");
    String loaded;
    try (BoundedAgentProcess agent = BoundedAgentProcess.start("128m", AgentLimits.defaults(),
        Map.of("pg", List.of(pg, TestPostgres.AGENT_USER, TestPostgres.AGENT_PASSWORD)),
        Map.of(), List.of("-Xlog:class+load=info:file=" + log))) {
      AgentClient client = agent.client(BoundedAgentProcess.OTHER).initialize();
      // the pool's connections work: the data source the agent hands it is the driver's
      String rows = AgentClient.structured(client.call("query",
          "{\"source\":\"pg\",\"sql\":\"SELECT count(*) AS n FROM customers\"}"))
          .get("rows").toString();
      assertThat(rows).matches("\\[\\[[1-9][0-9]*]]");
      loaded = Files.readString(log, StandardCharsets.UTF_8);
    }
    assertThat(loaded).as("the control: the log is the one of an agent on PostgreSQL")
        .contains(" org.postgresql.Driver ");
    for (String other : List.of("com.mysql.cj.jdbc.Driver", "org.mariadb.jdbc.Driver",
        "org.sqlite.JDBC", "org.h2.Driver")) {
      assertThat(loaded).as("another engine's driver loaded").doesNotContain(" " + other + " ");
    }
    assertThat(loaded).as("MySQL's cleanup thread started")
        .doesNotContain(" com.mysql.cj.jdbc.AbandonedConnectionCleanupThread ");
  }
}
