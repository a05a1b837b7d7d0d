package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The official TypeScript SDK client ({@code @modelcontextprotocol/sdk} 1.32.2, from npm) drives
 * {@code keel fixtures} over real HTTP: initialize, list and call tools with progress, logs,
 * resources, a prompt, and an elicitation it answers.
 */
class TypeScriptClientInteropTest {

  @Test
  void typeScriptSdkClientUsesEveryFeatureOfAKeelServer() throws Exception {
    NpmTools.ensureInstalled();
    NpmTools.Result run;
    try (KeelProcess keel = KeelProcess.fixtures()) {
      run = NpmTools.run(List.of(NpmTools.bin("node").toString(), "ts-interop-client.mjs",
          keel.url()), NpmTools.DIR, Duration.ofMinutes(2));
    }
    assertThat(run.exit()).as(run.output()).isZero();
    String[] lines = run.output().strip().split("\n");
    JsonNode seen = McpJson.standard().parse(lines[lines.length - 1]);

    assertThat(seen.get("sessionId").asString()).isNotBlank();
    assertThat(seen.get("serverInfo").get("name").asString()).isEqualTo("keel-fixtures");
    List<String> tools = new ArrayList<>();
    seen.get("tools").forEach(t -> tools.add(t.asString()));
    assertThat(tools).contains("test_tool_with_progress", "test_elicitation", "echo");

    JsonNode progress = seen.get("progress");
    assertThat(progress).hasSize(3);
    assertThat(progress.get(0).get("progress").asDouble()).isEqualTo(0.0);
    assertThat(progress.get(2).get("progress").asDouble()).isEqualTo(100.0);
    assertThat(progress.get(2).get("total").asDouble()).isEqualTo(100.0);

    assertThat(seen.get("logMessages").size()).isGreaterThanOrEqualTo(3);
    assertThat(seen.get("resource").get(0).get("text").asString())
        .isEqualTo("This is the content of the static text resource.");
    assertThat(seen.get("templateResource").get(0).get("text").asString()).contains("42");
    assertThat(seen.get("prompt").get("messages").get(0).get("content").get("text").asString())
        .contains("first").contains("second");

    assertThat(seen.get("elicitationRequests")).hasSize(1);
    assertThat(seen.get("elicitationRequests").get(0).get("message").asString())
        .isEqualTo("Who are you?");
    assertThat(seen.get("elicitationResult").get(0).get("text").asString())
        .contains("accept").contains("ts-user");
    assertThat(seen.get("echo").get(0).get("text").asString())
        .isEqualTo("hello from TypeScript");
    assertThat(seen.get("invalidArguments").get("isError").asBoolean()).isTrue();
  }
}
