package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel agent --console} as an operator runs it: {@code --console} without an operator is
 * a usage error (exit 2); with one, stdout's first line is still {@code listening on URL}, stderr
 * says {@code console on URL}, the operator's secret opens the console, and the agent's recent
 * statements are a panel with the refused one highlighted.
 */
class ConsoleCommandTest {

  static final String SECRET = "cli-operator-secret-0123456";

  @Test
  void consoleWithoutAnOperatorIsAUsageError() throws Exception {
    for (String command : new String[] {"agent", "fixtures"}) {
      Process p = new ProcessBuilder(KeelProcess.command(command, "--port", "0", "--console"))
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as(command).isEqualTo(2);
      assertThat(err).contains("--console needs at least one --operator NAME=SECRET");
    }
  }

  @Test
  void theAgentServesItsConsoleWithTheRecentStatements() throws Exception {
    Process p = new ProcessBuilder(KeelProcess.command("agent", "--port", "0", "--console",
        "--operator", "alice=" + SECRET)).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.UTF_8));
      BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(),
          StandardCharsets.UTF_8));
      String listening = CompletableFuture.supplyAsync(() -> {
        try {
          return out.readLine();
        } catch (java.io.IOException e) {
          return "read failed: " + e;
        }
      }).get(60, TimeUnit.SECONDS);
      assertThat(listening).matches("listening on http://127\\.0\\.0\\.1:\\d+/mcp");
      String consoleLine = CompletableFuture.supplyAsync(() -> {
        try {
          String line;
          while ((line = err.readLine()) != null && !line.startsWith("console on ")) {
            // other stderr lines
          }
          return line;
        } catch (java.io.IOException e) {
          return "read failed: " + e;
        }
      }).get(30, TimeUnit.SECONDS);
      String mcp = listening.substring("listening on ".length());
      assertThat(consoleLine).isEqualTo("console on "
          + mcp.substring(0, mcp.length() - "mcp".length()) + "console/");
      URI console = URI.create(consoleLine.substring("console on ".length()));
      Thread drain = new Thread(() -> {
        try {
          while (err.readLine() != null) {
            // keep the pipe open
          }
        } catch (java.io.IOException ignored) {
          // the process ended
        }
      });
      drain.setDaemon(true);
      drain.start();

      McpHttp client = new McpHttp(URI.create(mcp));
      String session = client.initialize();
      client.post(session, McpHttp.call(2, "query", "{\"sql\":\"DELETE FROM regions\"}"));
      HttpClient web = HttpClient.newHttpClient();
      JsonNode rows = Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
        HttpResponse<String> r = web.send(HttpRequest.newBuilder(console.resolve(
            "api/snapshot")).header("Authorization", "Bearer " + SECRET).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode panel = McpJson.standard().mapper().readTree(r.body()).get("panels").get(0);
        assertThat(panel.get("title").asString()).isEqualTo("Recent statements");
        return panel.get("rows");
      }, r -> r.size() > 0);
      JsonNode refused = rows.get(0);
      assertThat(refused.get("statement").asString()).isEqualTo("DELETE FROM regions");
      assertThat(refused.get("outcome").asString()).isEqualTo("refused");
      assertThat(refused.get("highlight").asBoolean()).isTrue();
    } finally {
      p.destroy();
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }
  }
}
