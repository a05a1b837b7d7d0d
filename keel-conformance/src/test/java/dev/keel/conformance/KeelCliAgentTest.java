package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.conformance.KeelCliScriptedTest.Run;
import dev.keel.mcp.core.McpJson;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel call} of a real {@code keel agent --allow-writes} without a terminal (issue 20,
 * Done items 3 and 4): {@code insert_row} without {@code --yes}/{@code --no} fails with a hint
 * that says what to do, {@code --no} declines it, {@code --yes} approves it (and the database
 * then holds that row only); {@code query} prints an aligned table with NULL shown and wide
 * cells cut, and {@code --json} the raw result.
 */
@OneJvm
class KeelCliAgentTest {

  @TempDir
  static Path dir;

  private static KeelAgentProcess agent;

  @BeforeAll
  static void start() throws Exception {
    agent = KeelAgentProcess.start("--allow-writes");
  }

  @AfterAll
  static void stop() throws Exception {
    if (agent != null) {
      agent.close();
    }
  }

  private static Run keel(String... args) throws Exception {
    return KeelCliScriptedTest.keelIn(dir, args);
  }

  @Test
  void theAgentsInsertNeedsYesAndNoDeclinesIt() throws Exception {
    Run bare = keel("call", agent.url(), "insert_row",
        "{\"table\":\"regions\",\"values\":{\"id\":801,\"name\":\"bare\"}}").askedNothing();
    assertThat(bare.exit()).isEqualTo(1);
    assertThat(bare.err()).contains("keel: the server needs to ask you something "
        + "(elicitation)").contains("run it at a terminal or pass --yes/--no");

    Run no = keel("call", "--no", agent.url(), "insert_row",
        "{\"table\":\"regions\",\"values\":{\"id\":802,\"name\":\"no\"}}").askedNothing();
    assertThat(no.exit()).isEqualTo(1);
    assertThat(no.out()).contains("Not approved; nothing was written");

    Run yes = keel("call", "--yes", agent.url(), "insert_row",
        "{\"table\":\"regions\",\"values\":{\"id\":803,\"name\":\"yes\"}}").askedNothing();
    assertThat(yes.exit()).as(yes.err()).isZero();
    assertThat(yes.err()).contains("keel: answered yes (--yes): approve");

    Run rows = keel("call", "--json", agent.url(), "query",
        "{\"sql\":\"SELECT id, name FROM regions WHERE id > 800 ORDER BY id\"}");
    assertThat(McpJson.standard().parse(rows.out()).get("structuredContent").get("rows")
        .toString()).isEqualTo("[[803,\"yes\"]]");
  }

  @Test
  void theAgentsQueryPrintsAnAlignedTableAndJsonPrintsTheRawResult() throws Exception {
    String sql = "SELECT id, name, email, NULL AS nothing FROM customers ORDER BY id LIMIT 4";
    Run table = keel("call", agent.url(), "query",
        McpJson.standard().write(McpJson.object().put("sql", sql))).askedNothing();
    assertThat(table.exit()).as(table.err()).isZero();
    List<String> lines = table.out().lines().toList();
    assertThat(lines).hasSize(7); // header, rule, 4 rows, count
    assertThat(lines.get(0)).startsWith("id").contains("name").contains("email")
        .contains("nothing");
    assertThat(lines.get(1)).matches("[- ]+");
    assertThat(lines.get(6)).isEqualTo("(4 rows)");
    int[] starts = {0, lines.get(0).indexOf("name"), lines.get(0).indexOf("email"),
        lines.get(0).indexOf("nothing")};
    for (String row : lines.subList(1, 6)) {
      for (int start : starts) {
        assertThat(start == 0 || row.charAt(start - 1) == ' ' && row.charAt(start) != ' ')
            .as("a cell starts at offset " + start + " in\n" + table.out()).isTrue();
      }
    }
    assertThat(lines.get(2).substring(starts[3])).isEqualTo("NULL");
    assertThat(table.out()).doesNotContain("{\"columns\"");

    Run json = keel("call", "--json", agent.url(), "query",
        McpJson.standard().write(McpJson.object().put("sql", sql)));
    JsonNode raw = McpJson.standard().parse(json.out());
    assertThat(raw.get("structuredContent").get("rows").size()).isEqualTo(4);
    assertThat(raw.get("structuredContent").get("columns").get(1).get("name").asString())
        .isEqualTo("name");
    assertThat(raw.get("content").get(0).get("type").asString()).isEqualTo("text");
  }

  @Test
  void aWideCellIsCutWithAnEllipsis() throws Exception {
    String sql = "SELECT 1 AS n, REPEAT('x', 120) AS wide";
    Run table = keel("call", agent.url(), "query",
        McpJson.standard().write(McpJson.object().put("sql", sql)));
    assertThat(table.exit()).as(table.err()).isZero();
    String row = table.out().lines().toList().get(2);
    assertThat(row).endsWith("x…").doesNotContain("x".repeat(41));
  }

}
