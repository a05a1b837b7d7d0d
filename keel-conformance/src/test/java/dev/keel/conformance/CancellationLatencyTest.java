package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.mcp.core.RequestCancelledException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.Tool;
import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * SPEC §3.4 over real HTTP: a tool blocked in {@code Thread.sleep}, in a blocking socket read
 * and in a JDBC query (H2, stopped with {@code Statement.cancel()}) stops within 200 ms of
 * {@code notifications/cancelled}, its request gets no response, and its thread is free again.
 */
class CancellationLatencyTest {

  static final long LIMIT_MILLIS = 200;

  static McpServer server;
  static McpHttpServer http;
  static volatile CountDownLatch queryStarted;
  static Connection keepAlive;

  @BeforeAll
  static void start() throws SQLException {
    keepAlive = DriverManager.getConnection("jdbc:h2:mem:cancel;DB_CLOSE_DELAY=-1");
    server = FixtureServer.create();
    server.addTool(Tool.builder("h2_long_query").description("A query that runs for ages")
        .build(), (ctx, args) -> {
          try (Connection c = DriverManager.getConnection("jdbc:h2:mem:cancel");
              Statement statement = c.createStatement();
              var onCancel = ctx.cancellation().onCancel(() -> cancelQuietly(statement))) {
            queryStarted.countDown();
            statement.executeQuery("SELECT COUNT(*) FROM SYSTEM_RANGE(1, 1000000) a, "
                + "SYSTEM_RANGE(1, 1000000) b WHERE a.X + b.X > 0");
            return CallToolResult.text("the query finished");
          } catch (SQLException e) {
            if (ctx.cancellation().isCancelled()) {
              throw new RequestCancelledException(ctx.cancellation().reason());
            }
            throw e;
          }
        });
    http = McpHttpServer.builder(server).port(0).start();
  }

  static void cancelQuietly(Statement statement) {
    try {
      statement.cancel();
    } catch (SQLException e) {
      // the statement is closing already
    }
  }

  @AfterAll
  static void stop() throws SQLException {
    http.close();
    server.close();
    keepAlive.close();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "test_sleep|{\"ms\":60000}",
      "test_block_read|{}",
      "h2_long_query|{}"})
  void blockedToolStopsWithin200MillisOfTheCancellation(String tool, String arguments)
      throws Exception {
    McpHttp client = new McpHttp(http.endpoint());
    String session = client.initialize();
    queryStarted = new CountDownLatch(1);
    CompletableFuture<HttpResponse<String>> call =
        client.postAsync(session, McpHttp.call(42, tool, arguments));
    await().atMost(Duration.ofSeconds(10))
        .until(() -> server.metrics().inFlightRequests() == 1);
    if (tool.startsWith("h2")) {
      assertThat(queryStarted.await(10, TimeUnit.SECONDS)).isTrue();
    }
    // Let the handler settle into its blocking call.
    Thread.sleep(150);
    long cancelledCount = server.metrics().cancellations();

    long start = System.nanoTime();
    HttpResponse<String> cancel = client.post(session, McpHttp.cancel(42));
    while (server.metrics().inFlightRequests() > 0
        && System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
      Thread.onSpinWait();
    }
    long stoppedMillis = (System.nanoTime() - start) / 1_000_000;
    System.err.printf("cancellation latency: %s stopped %d ms after notifications/cancelled%n",
        tool, stoppedMillis);

    assertThat(cancel.statusCode()).isEqualTo(202);
    assertThat(server.metrics().inFlightRequests()).as("handler still running").isZero();
    assertThat(stoppedMillis).as("%s stopped %d ms after the cancellation", tool, stoppedMillis)
        .isLessThan(LIMIT_MILLIS);
    assertThat(server.metrics().cancellations()).isEqualTo(cancelledCount + 1);

    HttpResponse<String> ended = call.get(5, TimeUnit.SECONDS);
    assertThat(ended.statusCode()).isEqualTo(200);
    assertThat(ended.body()).as("a cancelled request gets no response")
        .doesNotContain("\"id\":42");

    // The thread is free: the same session runs the next call at once.
    HttpResponse<String> next = client.post(session,
        McpHttp.call(43, "test_sleep", "{\"ms\":1}"));
    assertThat(next.body()).contains("slept 1 ms");
  }
}
