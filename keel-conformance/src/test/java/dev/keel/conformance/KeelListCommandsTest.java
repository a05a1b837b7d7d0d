package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.conformance.KeelCliScriptedTest.Run;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.McpHttpServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel resources} and {@code keel templates} against the fixture server in both eras,
 * over HTTP and stdio. The server serves its lists two entries a page, so every list is complete
 * only when the command followed the cursors. {@link KeelPromptCommandsTest} does the prompts.
 */
@OneJvm
class KeelListCommandsTest {

  @TempDir
  static Path dir;

  private static McpHttpServer http;
  private static String url;

  @BeforeAll
  static void start() {
    http = McpHttpServer.builder(FixtureServer.create(b -> b.pageSize(2))).port(0).start();
    url = http.endpoint().toString();
  }

  @AfterAll
  static void stop() {
    http.close();
  }

  private static Run keel(String... args) throws Exception {
    return KeelCliScriptedTest.keelIn(dir, args);
  }

  @Test
  void resourcesAndTemplatesAreListedOverEveryPageInBothEras() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      Run resources = keel("resources", "--era", era, url);
      assertThat(resources.exit()).as(era + ": " + resources.err()).isZero();
      List<String> lines = resources.out().lines().toList();
      assertThat(lines.get(0)).startsWith("URI").contains("NAME").contains("TYPE")
          .contains("DESCRIPTION");
      assertThat(resources.out()).as(era).contains("test://static-text")
          .contains("test://static-binary").contains("test://watched-resource")
          .contains("A static binary resource (PNG)").contains("(3 rows)");
      int name = lines.get(0).indexOf("NAME");
      assertThat(lines.stream().filter(l -> l.startsWith("test://")))
          .allSatisfy(l -> assertThat(l.charAt(name - 1) == ' ' && l.charAt(name) != ' ')
              .as(l).isTrue());


      Run templates = keel("templates", "--era", era, url);
      assertThat(templates.exit()).as(era + ": " + templates.err()).isZero();
      assertThat(templates.out()).as(era).contains("test://template/{id}/data")
          .contains("application/json");
    }
    Run json = keel("resources", "--json", url);
    JsonNode listed = McpJson.standard().parse(json.out()).get("resources");
    assertThat(listed.findValuesAsString("uri")).containsExactly("test://static-text",
        "test://static-binary", "test://watched-resource");
    assertThat(McpJson.standard().parse(keel("templates", "--json", "--era", "legacy", url)
        .out()).get("resourceTemplates").get(0).get("uriTemplate").asString())
        .isEqualTo("test://template/{id}/data");
  }

  @Test
  void resourcesAreListedOverStdio() throws Exception {
    List<String> args = new ArrayList<>(List.of("resources", "--stdio", "--"));
    args.addAll(KeelProcess.command("fixtures", "--stdio"));
    Run resources = keel(args.toArray(String[]::new));
    assertThat(resources.exit()).as(resources.err()).isZero();
    assertThat(resources.out()).contains("test://static-text");
  }
}
