package dev.keel.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * A heavy MariaDB query (a three-way cross join, no {@code SLEEP}: that is refused) is stopped
 * by {@code notifications/cancelled} in a legacy session, through both drivers (KILL QUERY from
 * a second connection), and is gone from the server's process list soon after; the connection
 * is back in the pool and the next query works. The statement timeout stops it as well.
 */
class MariaDbCancellationTest {

  static final long LIMIT_MILLIS = 1_000;

  static final Map<TestMariaDb.Driver, AgentServer> PATIENT =
      new EnumMap<>(TestMariaDb.Driver.class);
  static final Map<TestMariaDb.Driver, AgentServer> IMPATIENT =
      new EnumMap<>(TestMariaDb.Driver.class);

  @BeforeAll
  static void start() {
    for (TestMariaDb.Driver d : TestMariaDb.Driver.values()) {
      PATIENT.put(d, AgentServer.mariadb("keel_cancel", d, AgentLimits.defaults()
          .withStatementTimeout(Duration.ofSeconds(60)), false));
      IMPATIENT.put(d, AgentServer.mariadb("keel_cancel", d, AgentLimits.defaults()
          .withStatementTimeout(Duration.ofSeconds(1)), false));
    }
  }

  @AfterAll
  static void stop() {
    PATIENT.values().forEach(AgentServer::close);
    IMPATIENT.values().forEach(AgentServer::close);
  }

  static String heavy(String marker) {
    return "{\"sql\":\"SELECT count(*) AS " + marker + " FROM orders a, orders b, orders c\"}";
  }

  /** Returns how many sessions are running a statement containing {@code marker}. */
  static int running(String marker) throws SQLException {
    try (Connection c = TestMariaDb.get().admin(null);
        PreparedStatement p = c.prepareStatement("SELECT count(*) FROM "
            + "information_schema.processlist WHERE command IN ('Query', 'Execute') "
            + "AND info LIKE ? AND info NOT LIKE '%processlist%'")) {
      p.setString(1, "%" + marker + "%");
      try (ResultSet rs = p.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void cancelledNotificationStopsTheQuery(TestMariaDb.Driver driver) throws Exception {
    AgentServer server = PATIENT.get(driver);
    AgentClient client = server.client(AgentServer.ADMIN).initialize();
    String marker = "cancel_me_" + driver.name().toLowerCase(java.util.Locale.ROOT);
    CompletableFuture<HttpResponse<String>> call = client.callAsync(42, "query",
        heavy(marker));
    await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10))
        .until(() -> running(marker) == 1);

    long start = System.nanoTime();
    assertThat(client.cancel(42)).isEqualTo(202);
    while (running(marker) > 0) {
      assertThat(System.nanoTime() - start).as("still running after 5 s")
          .isLessThan(TimeUnit.SECONDS.toNanos(5));
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    System.err.printf("%s: the cross join gone from the process list %d ms after "
        + "notifications/cancelled%n", driver, millis);
    assertThat(millis).isLessThan(LIMIT_MILLIS);
    await().atMost(Duration.ofSeconds(3)).until(() -> server.agent.activeConnections() == 0);
    assertThat(call.get(5, TimeUnit.SECONDS).body()).as("a cancelled request gets no "
        + "response").doesNotContain("\"id\":42");
    assertThat(AgentClient.structured(client.call("query", "{\"sql\":\"SELECT 1\"}"))
        .get("rowCount").asInt()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(TestMariaDb.Driver.class)
  void theStatementTimeoutStopsTheQuery(TestMariaDb.Driver driver) throws Exception {
    AgentServer server = IMPATIENT.get(driver);
    AgentClient client = server.client(AgentServer.ADMIN).initialize();
    String marker = "time_me_" + driver.name().toLowerCase(java.util.Locale.ROOT);
    long start = System.nanoTime();
    JsonNode result = client.call("query", heavy(marker));
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(AgentClient.error(result)).containsAnyOf("statement timeout", "timed out");
    assertThat(millis).isBetween(900L, 1_000L + LIMIT_MILLIS + 500);
    await().atMost(Duration.ofSeconds(2)).until(() -> running(marker) == 0);
    await().atMost(Duration.ofSeconds(2)).until(() -> server.agent.activeConnections() == 0);
  }
}
