package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Each principal may spend only so much statement time per minute ({@code TimeBudget}): with 3
 * seconds a minute, a principal sleeping 1.5 s at a time is stopped or refused by the third
 * statement at the latest, and told when to try again, while another principal still runs.
 */
class TimeBudgetTest {

  static AgentServer server;

  @BeforeAll
  static void start() {
    server = AgentServer.postgres("keel_budget", AgentLimits.defaults()
        .withTimeBudgetPerMinute(Duration.ofSeconds(3)), false);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void aPrincipalThatUsedItsTimeIsRefusedAndAnotherStillRuns() {
    AgentClient analyst = server.client(AgentServer.ANALYST).initialize();
    String sleep = "{\"sql\":\"SELECT pg_sleep(1.5)\"}";
    JsonNode first = analyst.call("query", sleep);
    assertThat(first.path("isError").asBoolean(false)).as("%s", first).isFalse();
    // the second may run for what is left (a little under 1.5 s) and be stopped at its end
    JsonNode second = analyst.call("query", sleep);
    if (second.path("isError").asBoolean(false)) {
      assertThat(AgentClient.error(second)).contains("statement time (3 s per minute)");
    }
    long started = System.nanoTime();
    String third = AgentClient.error(analyst.call("query", sleep));
    assertThat(third).startsWith("You have used your statement time (3 s per minute); try "
        + "again in ").endsWith("seconds");
    // refused before it ran: no sleep
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
    AgentClient.error(analyst.call("count_rows", "{\"table\":\"orders\"}"));

    AgentClient admin = server.client(AgentServer.ADMIN).initialize();
    JsonNode other = admin.call("query", "{\"sql\":\"SELECT pg_sleep(0.2), 1 AS one\"}");
    assertThat(AgentClient.structured(other).at("/rows/0/1").asInt()).isEqualTo(1);
  }
}
