package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel agent} as a user runs it (Done item 1 of the agent issue): a real process on the
 * embedded sample database prints {@code listening on http://HOST:PORT/mcp} and how to connect
 * a client, and the {@code query} tool returns rows of the sample data over real HTTP (what
 * {@code ./keel call URL query '{...}'} sends). It stops cleanly on SIGTERM. With a
 * configuration file of sources (the H2 sample and a SQLite file), policies and a curated tool,
 * {@code ./keel call} lists the sources, calls the curated tool, and is held to the column
 * policy of the SQLite source, and every statement is a line of the {@code --audit-file}.
 */
@OneJvm
class AgentCommandTest {

  @Test
  void theAgentServesTheSampleDatabaseOverHttpAndSaysHowToConnect() throws Exception {
    Process process = new ProcessBuilder(KeelProcess.command("agent", "--port", "0"))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8));
      List<String> lines = CompletableFuture.supplyAsync(() -> {
        List<String> read = new ArrayList<>();
        try {
          for (int i = 0; i < 8; i++) {
            read.add(out.readLine());
          }
        } catch (java.io.IOException e) {
          read.add("read failed: " + e);
        }
        return read;
      }).get(60, TimeUnit.SECONDS);
      assertThat(lines.get(0)).matches("listening on http://127\\.0\\.0\\.1:\\d+/mcp");
      String url = lines.get(0).substring("listening on ".length());
      String banner = String.join("\n", lines);
      assertThat(banner).contains("./keel call " + url + " query '{\"sql\":")
          .contains("\"url\":\"" + url + "\"").contains("\"agent\",\"--stdio\"");

      McpHttp client = new McpHttp(URI.create(url));
      String session = client.initialize();
      HttpResponse<String> r = client.post(session, McpHttp.call(2, "query",
          "{\"sql\":\"SELECT country, count(*) AS customers FROM customers GROUP BY country "
              + "ORDER BY 2 DESC, 1\"}"));
      assertThat(r.statusCode()).isEqualTo(200);
      String body = r.body().strip();
      JsonNode response = McpJson.standard().parse(body.startsWith("{") ? body
          : body.substring(body.lastIndexOf("data:") + 5).strip());
      JsonNode rows = response.get("result").get("structuredContent").get("rows");
      assertThat(rows.size()).isEqualTo(17);
      assertThat(rows.get(0).toString()).isEqualTo("[\"CA\",42]");
    } finally {
      process.destroy();
      assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).isZero();
    }
  }

  @Test
  void aRoleThatCouldWriteIsNamedLoudlyOnStderr() throws Exception {
    // An H2 administrator may do anything: the agent still refuses writes, and says so.
    Process process = new ProcessBuilder(KeelProcess.command("agent", "--port", "0",
        "--jdbc-url", "jdbc:h2:mem:keel_cli_admin;DATABASE_TO_LOWER=TRUE", "--user", "sa"))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(),
          StandardCharsets.UTF_8));
      String warnings = CompletableFuture.supplyAsync(() -> {
        StringBuilder read = new StringBuilder();
        try {
          for (String line = err.readLine(); line != null; line = err.readLine()) {
            read.append(line).append('\n');
            if (line.startsWith("keel agent: WARNING: the agent refuses writes itself")) {
              break;
            }
          }
        } catch (java.io.IOException e) {
          read.append("read failed: ").append(e);
        }
        return read.toString();
      }).get(60, TimeUnit.SECONDS);
      assertThat(warnings).contains("keel agent: WARNING: the database role can change the "
          + "database, although --allow-writes is off").contains("administrator");
    } finally {
      process.destroy();
      assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  @Test
  void aConfigurationOfSourcesPoliciesAndCuratedToolsServesAndAuditsThem(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path notes = dir.resolve("notes.db");
    try (java.sql.Connection c = java.sql.DriverManager.getConnection("jdbc:sqlite:" + notes);
        java.sql.Statement s = c.createStatement()) {
      s.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
      s.execute("INSERT INTO notes VALUES (1, 'first'), (2, 'second')");
    }
    java.nio.file.Path audit = dir.resolve("audit.jsonl");
    java.nio.file.Path config = dir.resolve("keel-agent.json");
    java.nio.file.Files.writeString(config, """
        {"sources": {
           "shop": {"sample": true, "access": {"principals": {"*": {"tables": "*"}}}},
           "notes": {"jdbcUrl": "jdbc:sqlite:%s",
                     "access": {"principals": {"*": {"tables": {"notes": ["id"]}}}}}},
         "tools": {"orders_by_status": {"source": "shop",
           "description": "Orders with a given status",
           "sql": "SELECT id, status FROM orders WHERE status = ? ORDER BY id LIMIT ?",
           "parameters": [{"name": "status", "type": "string"},
                          {"name": "limit", "type": "integer", "default": 2}]}}}
        """.formatted(notes.toString().replace("\\", "/")));
    Process process = new ProcessBuilder(KeelProcess.command("agent", "--port", "0",
        "--config", config.toString(), "--audit-file", audit.toString()))
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    try {
      BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
          StandardCharsets.UTF_8));
      String first = CompletableFuture.supplyAsync(() -> {
        try {
          return out.readLine();
        } catch (java.io.IOException e) {
          return "read failed: " + e;
        }
      }).get(60, TimeUnit.SECONDS);
      assertThat(first).matches("listening on http://127\\.0\\.0\\.1:\\d+/mcp");
      String url = first.substring("listening on ".length());

      JsonNode sources = keelCall(url, "list_sources", "{}");
      assertThat(sources.get("structuredContent").get("sources").findValuesAsString("name"))
          .containsExactly("shop", "notes");
      JsonNode curated = keelCall(url, "orders_by_status", "{\"status\":\"shipped\"}");
      assertThat(curated.get("structuredContent").get("rowCount").asInt()).isEqualTo(2);
      assertThat(curated.get("structuredContent").get("rows").get(0).get(1).asString())
          .isEqualTo("shipped");
      JsonNode hidden = keelCall(url, "query",
          "{\"source\":\"notes\",\"sql\":\"SELECT body FROM notes\"}");
      assertThat(hidden.get("isError").asBoolean()).isTrue();
      JsonNode ids = keelCall(url, "query",
          "{\"source\":\"notes\",\"sql\":\"SELECT id FROM notes ORDER BY id\"}");
      assertThat(ids.get("structuredContent").get("rows").toString()).isEqualTo("[[1],[2]]");
    } finally {
      process.destroy();
      assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
    }
    List<JsonNode> lines = new ArrayList<>();
    for (String line : java.nio.file.Files.readAllLines(audit)) {
      lines.add(McpJson.standard().parse(line));
    }
    // list_sources reads no database, so only the three statements are on record
    assertThat(lines).extracting(l -> l.get("tool").asString() + "@" + l.get("source")
        .asString() + ":" + l.get("outcome").asString()).containsExactly(
            "orders_by_status@shop:ran", "query@notes:failed",
            "query@notes:ran");
  }

  /** Runs {@code ./keel call URL TOOL ARGS --json} and returns the result it prints. */
  private static JsonNode keelCall(String url, String tool, String arguments) throws Exception {
    Process call = new ProcessBuilder(KeelProcess.command("call", "--json", url, tool,
        arguments)).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String printed = new String(call.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(call.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return McpJson.standard().parse(printed.strip());
  }
}
