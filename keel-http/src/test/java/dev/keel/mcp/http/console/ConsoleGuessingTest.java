package dev.keel.mcp.http.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.http.McpHttpServer;
import dev.keel.mcp.server.McpServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * Guessing operator secrets: past {@link FailedLogins#MAX} wrong ones in a minute from one
 * address, that address gets 429 for every credential, the right one included, so a hit
 * cannot be told from a miss.
 */
class ConsoleGuessingTest {

  @Test
  void tooManyWrongSecretsLockTheAddressOutEvenForTheRightOne() throws Exception {
    String secret = "guessing-test-operator-secret";
    try (McpServer server = McpServer.builder().build();
        McpHttpServer http = McpHttpServer.builder(server)
            .console(Console.builder().operator("alice", secret).build()).start()) {
      HttpClient web = HttpClient.newHttpClient();
      java.net.URI snapshot = http.console().orElseThrow().resolve("api/snapshot");
      for (int i = 0; i < FailedLogins.MAX; i++) {
        HttpResponse<String> r = web.send(HttpRequest.newBuilder(snapshot)
            .header("Authorization", "Bearer wrong-guess-" + i).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(401);
      }
      HttpResponse<String> right = web.send(HttpRequest.newBuilder(snapshot)
          .header("Authorization", "Bearer " + secret).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(right.statusCode()).isEqualTo(429);
      assertThat(right.headers().firstValue("Retry-After")).isPresent();
      HttpResponse<String> form = web.send(HttpRequest.newBuilder(
          http.console().orElseThrow().resolve("login"))
          .header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString("secret=" + secret)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(form.statusCode()).isEqualTo(429);
      assertThat(form.headers().firstValue("Set-Cookie")).isEmpty();
    }
  }
}
