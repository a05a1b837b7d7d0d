package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.CallOptions;
import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The server answers with ids nothing asked for, or with the id of another request that is
 * waiting: such a response is discarded and completes nothing; the waiting request gets its own
 * answer.
 */
class UnsolicitedResponseTest {

  private FakeMcpServer server;
  /** Released by a test when the slow request may be answered (its genuine answer). */
  private final CountDownLatch release = new CountDownLatch(1);
  /** The JSON id of the slow request, once the server has it. */
  private final CompletableFuture<String> slowId = new CompletableFuture<>();

  @BeforeEach
  void start() throws Exception {
    server = FakeMcpServer.start();
  }

  @AfterEach
  void stop() {
    release.countDown();
    server.close();
  }

  /** {@code test/slow} is answered {"who":"genuine"} once the test releases it. */
  private boolean slow(FakeMcpServer.Seen request, com.sun.net.httpserver.HttpExchange ex)
      throws Exception {
    if (!request.is("test/slow")) {
      return false;
    }
    slowId.complete(request.id());
    release.await(30, TimeUnit.SECONDS);
    FakeMcpServer.json(ex, 200, FakeMcpServer.result(request.id(), "{\"who\":\"genuine\"}"));
    return true;
  }

  private static CompletableFuture<JsonNode> callSlow(McpClient client) {
    return CompletableFuture.supplyAsync(
        () -> client.request("test/slow", McpJson.object(), CallOptions.defaults()));
  }

  @Test
  void inv58_jsonAnswerWithAnotherPendingRequestsIdCompletesNothing() throws Exception {
    server.behave((request, ex) -> {
      if (request.is("test/forge")) {
        // answer this POST with the id of the slow request that is still waiting
        FakeMcpServer.json(ex, 200, FakeMcpServer.result(slowId.get(5, TimeUnit.SECONDS),
            "{\"who\":\"forged\"}"));
        return true;
      }
      return slow(request, ex);
    });
    try (McpClient client = Clients.legacy(server)) {
      CompletableFuture<JsonNode> waiting = callSlow(client);
      slowId.get(10, TimeUnit.SECONDS);

      assertThatThrownBy(() -> client.request("test/forge", McpJson.object(),
          CallOptions.defaults())).isInstanceOf(TransportException.class);

      // the forged answer was read in full before test/forge failed, and completed nothing
      assertThat(waiting).isNotDone();
      release.countDown();
      assertThat(waiting.get(10, TimeUnit.SECONDS).path("who").stringValue())
          .isEqualTo("genuine");
    }
  }

  @Test
  void inv58_streamedAnswerWithAnotherPendingRequestsIdIsDiscarded() throws Exception {
    server.behave((request, ex) -> {
      if (request.is("test/forge")) {
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          FakeMcpServer.event(out, FakeMcpServer.result(slowId.get(5, TimeUnit.SECONDS),
              "{\"who\":\"forged\"}"));
          FakeMcpServer.event(out, FakeMcpServer.result(request.id(), "{\"who\":\"forge\"}"));
        }
        return true;
      }
      return slow(request, ex);
    });
    try (McpClient client = Clients.legacy(server)) {
      CompletableFuture<JsonNode> waiting = callSlow(client);
      slowId.get(10, TimeUnit.SECONDS);

      JsonNode own = client.request("test/forge", McpJson.object(), CallOptions.defaults());

      assertThat(own.path("who").stringValue()).isEqualTo("forge");
      assertThat(waiting).isNotDone();
      release.countDown();
      assertThat(waiting.get(10, TimeUnit.SECONDS).path("who").stringValue())
          .isEqualTo("genuine");
    }
  }

  @Test
  void inv58_answerOnTheListeningStreamCompletesNothing() throws Exception {
    BlockingQueue<String> notified = new LinkedBlockingQueue<>();
    CountDownLatch listened = new CountDownLatch(1);
    server.behave((request, ex) -> {
      if (request.verb().equals("GET") && listened.getCount() > 0) {
        listened.countDown();
        String id = slowId.get(10, TimeUnit.SECONDS);
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          FakeMcpServer.event(out, FakeMcpServer.result(id, "{\"who\":\"forged\"}"));
          FakeMcpServer.event(out, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":"
              + "{\"code\":-32603,\"message\":\"forged error\"}}");
          // the notification after them is the test's sign that both were processed
          FakeMcpServer.event(out, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
              + "\"params\":{\"level\":\"info\",\"data\":\"after the forgeries\"}}");
          release.await(30, TimeUnit.SECONDS);
        }
        return true;
      }
      return slow(request, ex);
    });
    McpClient client = McpClient.builder(Clients.http(server.endpoint()).build())
        .era(Era.LEGACY)
        .requestTimeout(Duration.ofSeconds(20))
        .notifications((method, params) -> notified.add(method))
        .connect();
    try (client) {
      CompletableFuture<JsonNode> waiting = callSlow(client);

      assertThat(notified.poll(10, TimeUnit.SECONDS)).isEqualTo("notifications/message");
      assertThat(waiting).isNotDone();
      release.countDown();
      assertThat(waiting.get(10, TimeUnit.SECONDS).path("who").stringValue())
          .isEqualTo("genuine");
    }
  }

  @Test
  void inv58_answerWithAnUnknownIdIsDiscardedAndTheCallerIsNotAnsweredWithIt() {
    server.behave((request, ex) -> {
      if (request.is("test/stray")) {
        FakeMcpServer.json(ex, 200, FakeMcpServer.result("999", "{\"who\":\"stray\"}"));
        return true;
      }
      if (request.is("test/strayStream")) {
        // a stray answer, then nothing: the caller must time out, not take the stray one
        try (OutputStream out = FakeMcpServer.sse(ex)) {
          FakeMcpServer.event(out, FakeMcpServer.result("999", "{\"who\":\"stray\"}"));
          FakeMcpServer.event(out, FakeMcpServer.result("\"" + request.id() + "\"",
              "{\"who\":\"string id\"}"));
          release.await(30, TimeUnit.SECONDS);
        }
        return true;
      }
      return false;
    });
    try (McpClient client = Clients.legacy(server)) {
      assertThatThrownBy(() -> client.request("test/stray", McpJson.object(),
          CallOptions.defaults())).isInstanceOf(TransportException.class);
      assertThatThrownBy(() -> client.request("test/strayStream", McpJson.object(),
          CallOptions.defaults().withTimeout(Duration.ofMillis(500))))
          .isInstanceOf(RequestTimeoutException.class);
      // the connection is still good
      client.ping();
    }
  }
}
