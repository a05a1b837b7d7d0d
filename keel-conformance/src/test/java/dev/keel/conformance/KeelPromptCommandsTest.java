package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.cli.fixtures.FixtureServer;
import dev.keel.conformance.KeelCliScriptedTest.Run;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.http.McpHttpServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * {@code keel prompts} and {@code keel prompt} against the fixture server in both eras, over
 * HTTP and stdio, the prompt list two entries a page (complete only when the command followed
 * the cursors); and images of a result (a prompt's, a tool's) saved to fresh files under
 * {@code --save-dir}.
 */
@OneJvm
class KeelPromptCommandsTest {

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
  void promptsAreListedWithTheirArgumentsAndOneIsPrintedReadably() throws Exception {
    for (String era : List.of("modern", "legacy")) {
      Run prompts = keel("prompts", "--era", era, url);
      assertThat(prompts.exit()).as(era + ": " + prompts.err()).isZero();
      assertThat(prompts.out()).as(era).contains("test_simple_prompt")
          .contains("test_prompt_with_image").containsPattern(
              "(?m)^test_prompt_with_arguments +A prompt with two required arguments$")
          .contains("args: arg1 (required) - First argument, arg2 (required) - Second "
              + "argument");

      Run prompt = keel("prompt", "--era", era, url, "test_prompt_with_arguments",
          "arg1=hello", "arg2=a=b");
      assertThat(prompt.exit()).as(era + ": " + prompt.err()).isZero();
      assertThat(prompt.out()).as(era)
          .isEqualTo("[user]\nPrompt with arguments: arg1='hello', arg2='a=b'\n");
    }
    JsonNode listed = McpJson.standard().parse(keel("prompts", "--json", url).out())
        .get("prompts");
    assertThat(listed.findValuesAsString("name")).contains("test_simple_prompt",
        "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
        "test_prompt_with_image");
    Run json = keel("prompt", "--json", "--era", "legacy", url, "test_simple_prompt");
    assertThat(McpJson.standard().parse(json.out()).get("messages").get(0).get("role")
        .asString()).isEqualTo("user");
    Run badArgument = keel("prompt", url, "test_prompt_with_arguments", "arg1");
    assertThat(badArgument.exit()).isEqualTo(2);
    assertThat(badArgument.err()).contains("a prompt argument must look like NAME=VALUE: arg1");
  }

  @Test
  void imagesAreSavedToFreshFilesUnderTheSaveDirectory() throws Exception {
    Path saved = Files.createDirectories(dir.resolve("saved"));
    Run prompt = keel("prompt", "--save-dir", saved.toString(), url, "test_prompt_with_image");
    assertThat(prompt.exit()).as(prompt.err()).isZero();
    Run call = keel("call", "--save-dir", saved.toString(), url, "test_image_content");
    assertThat(call.exit()).as(call.err()).isZero();
    List<Path> files;
    try (Stream<Path> listed = Files.list(saved)) {
      files = new ArrayList<>(listed.sorted().toList());
    }
    assertThat(files).hasSize(2).allSatisfy(f -> {
      assertThat(f.getFileName().toString()).matches("keel-[0-9a-f]{8}\\.png");
      assertThat(Files.readAllBytes(f)).startsWith(0x89, 'P', 'N', 'G');
    });
    assertThat(prompt.out() + call.out()).containsPattern("\\[image image/png, \\d+ bytes\\] "
        + "saved to " + java.util.regex.Pattern.quote(saved.toString()) + "/keel-[0-9a-f]{8}"
        + "\\.png");
    Run json = keel("call", "--json", "--save-dir", saved.toString(), url,
        "test_image_content");
    assertThat(McpJson.standard().parse(json.out()).get("content").get(0).get("data")
        .asString()).isNotEmpty();
    try (Stream<Path> listed = Files.list(saved)) {
      assertThat(listed.count()).as("--json saves nothing").isEqualTo(2);
    }
  }

  @Test
  void aPromptIsPrintedOverStdio() throws Exception {
    List<String> args = new ArrayList<>(List.of("prompt", "--stdio", "test_simple_prompt",
        "--"));
    args.addAll(KeelProcess.command("fixtures", "--stdio"));
    Run prompt = keel(args.toArray(String[]::new));
    assertThat(prompt.exit()).as(prompt.err()).isZero();
    assertThat(prompt.out()).isEqualTo("[user]\nThis is a simple prompt for testing.\n");
  }
}
