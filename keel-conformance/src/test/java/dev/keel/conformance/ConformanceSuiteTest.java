package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.keel.mcp.core.McpJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The official MCP conformance suite ({@code @modelcontextprotocol/conformance} 0.1.16, every
 * server scenario of {@code --suite all}) against {@code keel fixtures}, started as a real
 * process. CI fails when any scenario fails or any check is a FAILURE.
 */
class ConformanceSuiteTest {

  static final int SERVER_SCENARIOS = 32;

  @Test
  void everyServerScenarioOfSuiteAllPassesAgainstKeelFixtures() throws Exception {
    NpmTools.ensureInstalled();
    // A fresh folder per run: checks.json files of an earlier run must not count.
    Path results = Path.of("target", "conformance-results", "run-" + System.currentTimeMillis())
        .toAbsolutePath();
    Files.createDirectories(results);
    NpmTools.Result run;
    int exit;
    try (KeelProcess keel = KeelProcess.fixtures()) {
      run = NpmTools.run(List.of(NpmTools.bin("conformance").toString(), "server", "--url",
          keel.url(), "--suite", "all", "-o", results.toString()), NpmTools.DIR,
          Duration.ofMinutes(8));
      exit = keel.terminate();
    }
    Files.writeString(results.resolve("run.log"), run.output());
    List<String> summary = summaryLines(run.output());
    List<String> failed = summary.stream().filter(l -> l.startsWith("✗")).toList();
    List<String> passed = summary.stream().filter(l -> l.startsWith("✓")).toList();
    assertThat(failed).as("failed scenarios; full log in %s", results).isEmpty();
    assertThat(passed).as("passed scenarios; full log in %s", results)
        .hasSize(SERVER_SCENARIOS);
    assertThat(failureChecks(results)).as("FAILURE checks in %s", results).isEmpty();
    assertThat(checkStatuses(results, "server-sse-polling"))
        .as("SEP-1699 polling: priming event, retry field, replay after reconnection")
        .containsEntry("server-sse-priming-event", "SUCCESS")
        .containsEntry("server-sse-retry-field", "SUCCESS")
        .containsEntry("server-sse-disconnect-resume", "SUCCESS")
        .doesNotContainValue("WARNING");
    assertThat(run.exit()).as("conformance exit status").isZero();
    assertThat(exit).as("keel fixtures exit status after SIGTERM").isZero();
  }

  /** The per-scenario lines after {@code === SUMMARY ===}. */
  static List<String> summaryLines(String output) {
    String clean = output.replaceAll("\u001B\\[[0-9;]*m", "");
    int at = clean.indexOf("=== SUMMARY ===");
    assertThat(at).as("no summary in the conformance output:\n%s", clean).isGreaterThan(-1);
    List<String> lines = new ArrayList<>();
    for (String line : clean.substring(at).split("\n")) {
      String l = line.strip();
      if (l.matches("^[✓✗] \\S+: \\d+ passed, \\d+ failed.*")) {
        lines.add(l);
      }
    }
    return lines;
  }

  /** The status of every check of one scenario, by check id. */
  static java.util.Map<String, String> checkStatuses(Path results, String scenario)
      throws IOException {
    java.util.Map<String, String> statuses = new java.util.LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(results)) {
      for (Path file : files.filter(f -> f.getFileName().toString().equals("checks.json")
          && f.getParent().getFileName().toString().startsWith("server-" + scenario + "-"))
          .toList()) {
        for (JsonNode check : McpJson.standard().parse(Files.readString(file))) {
          statuses.put(check.path("id").asString(""), check.path("status").asString(""));
        }
      }
    }
    return statuses;
  }

  /** Every check recorded with status FAILURE in the results' checks.json files. */
  static List<String> failureChecks(Path results) throws IOException {
    List<String> failures = new ArrayList<>();
    try (Stream<Path> files = Files.walk(results)) {
      for (Path file : files.filter(f -> f.getFileName().toString().equals("checks.json"))
          .toList()) {
        JsonNode checks = McpJson.standard().parse(Files.readString(file));
        collectFailures(checks, file, failures);
      }
    }
    return failures;
  }

  private static void collectFailures(JsonNode node, Path file, List<String> out) {
    if (node.isObject()) {
      JsonNode status = node.get("status");
      if (status != null && "FAILURE".equals(status.asString())) {
        out.add(file.getParent().getFileName() + ": " + node.path("name").asString(""));
      }
      node.properties().forEach(e -> collectFailures(e.getValue(), file, out));
    } else if (node.isArray()) {
      node.forEach(child -> collectFailures(child, file, out));
    }
  }
}
