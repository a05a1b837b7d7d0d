package dev.keel.mcp.client.misbehave;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.client.McpClient;
import dev.keel.mcp.client.TransportException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The server redirects to another origin: the client never follows, so neither the request nor
 * its {@code Authorization} header reaches the other origin, and the caller is told.
 */
class RedirectTest {

  private FakeMcpServer server;
  private OtherOrigin other;

  @BeforeEach
  void start() throws Exception {
    server = FakeMcpServer.start();
    other = new OtherOrigin();
  }

  @AfterEach
  void stop() throws Exception {
    server.close();
    other.close();
  }

  private FakeMcpServer.Behavior redirect(String rpcMethod, int status) {
    return (request, ex) -> {
      if (request.is(rpcMethod)) {
        ex.getResponseHeaders().set("Location", other.url());
        FakeMcpServer.status(ex, status);
        return true;
      }
      return false;
    };
  }

  private McpClient client(Era era) {
    return McpClient.builder(Clients.http(server.endpoint()).bearer("secret").build())
        .era(era)
        .connectTimeout(Duration.ofSeconds(10))
        .requestTimeout(Duration.ofSeconds(20))
        .connect();
  }

  @ParameterizedTest
  @ValueSource(ints = {301, 302, 303, 307, 308})
  void inv60_redirectOfARequestToAnotherOriginIsNeverFollowed(int status) {
    server.behave(redirect("tools/list", status));
    try (McpClient client = client(Era.LEGACY)) {
      assertThatThrownBy(client::listTools)
          .isInstanceOfSatisfying(TransportException.class,
              e -> assertThat(e.httpStatus()).isEqualTo(status));

      // the credential was configured and used with the configured origin...
      assertThat(server.seen("tools/list")).extracting(FakeMcpServer.Seen::authorization)
          .containsExactly("Bearer secret");
      // ...and nothing at all reached the other one
      assertThat(other.connections()).isZero();
      assertThat(other.received()).isEmpty();
    }
  }

  @Test
  void inv60_redirectOfTheHandshakeIsNeverFollowed() {
    server.behave(redirect("initialize", 307));

    assertThatThrownBy(() -> client(Era.LEGACY)).isInstanceOf(TransportException.class);

    assertThat(server.seen("initialize")).hasSize(1);
    assertThat(other.connections()).isZero();
  }

  @Test
  void inv60_redirectOfTheEraProbeIsNeverFollowedAndIsNoVerdict() {
    server.behave(redirect("server/discover", 308));

    assertThatThrownBy(() -> client(Era.AUTO)).isInstanceOf(TransportException.class);

    assertThat(server.seen("server/discover")).hasSize(1);
    // a redirect says nothing about the era: no legacy handshake followed it
    assertThat(server.seen("initialize")).isEmpty();
    assertThat(other.connections()).isZero();
  }

  @Test
  void inv60_redirectOfTheListeningStreamIsNeverFollowed() throws Exception {
    CountDownLatch redirected = new CountDownLatch(1);
    server.behave((request, ex) -> {
      if (request.verb().equals("GET")) {
        ex.getResponseHeaders().set("Location", other.url());
        FakeMcpServer.status(ex, 302);
        redirected.countDown();
        return true;
      }
      return false;
    });
    try (McpClient client = client(Era.LEGACY)) {
      assertThat(redirected.await(10, TimeUnit.SECONDS)).isTrue();
      client.ping();
      // a followed redirect would have connected right after the 302; give it the chance
      await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
          .until(() -> other.connections() == 0);
      assertThat(server.seen()).filteredOn(s -> s.verb().equals("GET"))
          .extracting(FakeMcpServer.Seen::authorization).containsOnly("Bearer secret");
    }
  }
}
