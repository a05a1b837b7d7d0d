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
 * The official MCP conformance suites against one {@code keel fixtures} process, started as a
 * real process, on one endpoint: 0.1.16 {@code --suite all} (legacy era, 32 scenarios) and
 * 0.2.0-alpha.12 {@code --requirements 2026-07-28} (37 scored scenarios plus 3 pending and the
 * 10 scenarios of the tasks extension). CI fails when any scenario fails, any check is a
 * FAILURE, or (2026) any check is a WARNING.
 */
class ConformanceSuiteTest {

  static final int SERVER_SCENARIOS = 32;

  /** Scored scenarios of {@code --requirements 2026-07-28} in 0.2.0-alpha.12. */
  static final int REQUIRED_2026 = 37;
  /** Pending scenarios it runs without scoring; Keel must pass them too. */
  static final List<String> PENDING_2026 = List.of("json-schema-2020-12",
      "http-header-validation", "http-custom-header-server-validation");
  /** The tasks extension's scenarios it runs without scoring; Keel must pass them too. */
  static final List<String> TASKS_2026 = List.of("tasks-lifecycle",
      "tasks-capability-negotiation", "tasks-wire-fields", "tasks-request-state-removal",
      "tasks-mrtr-input", "tasks-request-headers", "tasks-dispatch-and-envelope",
      "tasks-status-notifications", "tasks-required-task-error", "tasks-mrtr-composition");

  @Test
  void bothSuitesPassAgainstOneKeelFixturesProcessOnOneEndpoint() throws Exception {
    int exit;
    try (KeelProcess keel = KeelProcess.fixtures()) {
      bothSuitesPass(keel.url(), "one-process");
      exit = keel.terminate();
    }
    assertThat(exit).as("keel fixtures exit status after SIGTERM").isZero();
  }

  /**
   * Runs both suites against {@code url} and checks every scenario passed, with no FAILURE
   * check and (2026) no WARNING check; results go to {@code target/conformance-results}.
   */
  static void bothSuitesPass(String url, String label) throws Exception {
    NpmTools.ensureInstalled();
    // A fresh folder per run: checks.json files of an earlier run must not count.
    Path results = Path.of("target", "conformance-results", label + "-"
        + System.currentTimeMillis()).toAbsolutePath();
    Path legacy = results.resolve("legacy");
    Path modern = results.resolve("2026-07-28");
    Files.createDirectories(legacy);
    Files.createDirectories(modern);
    NpmTools.Result legacyRun = NpmTools.run(NpmTools.suite(NpmTools.LEGACY_SUITE, "server",
        "--url", url, "--suite", "all", "-o", legacy.toString()), NpmTools.DIR,
        Duration.ofMinutes(8));
    NpmTools.Result modernRun = NpmTools.run(NpmTools.suite(NpmTools.SUITE_2026, "server",
        "--url", url, "--requirements", "2026-07-28", "-o", modern.toString()), NpmTools.DIR,
        Duration.ofMinutes(8));
    Files.writeString(legacy.resolve("run.log"), legacyRun.output());
    Files.writeString(modern.resolve("run.log"), modernRun.output());

    List<String> legacySummary = summaryLines(legacyRun.output());
    assertThat(legacySummary.stream().filter(l -> l.startsWith("✗")).toList())
        .as("failed legacy scenarios; full log in %s", legacy).isEmpty();
    assertThat(legacySummary.stream().filter(l -> l.startsWith("✓")).toList())
        .as("passed legacy scenarios; full log in %s", legacy).hasSize(SERVER_SCENARIOS);
    assertThat(failureChecks(legacy)).as("FAILURE checks in %s", legacy).isEmpty();
    assertThat(checkStatuses(legacy, "server-sse-polling"))
        .as("SEP-1699 polling: priming event, retry field, replay after reconnection")
        .containsEntry("server-sse-priming-event", "SUCCESS")
        .containsEntry("server-sse-retry-field", "SUCCESS")
        .containsEntry("server-sse-disconnect-resume", "SUCCESS")
        .doesNotContainValue("WARNING");
    assertThat(legacyRun.exit()).as("legacy conformance exit status").isZero();

    List<String> modernSummary = summaryLines(modernRun.output());
    assertThat(modernSummary.stream().filter(l -> l.startsWith("✗")).toList())
        .as("failed 2026-07-28 scenarios; full log in %s", modern).isEmpty();
    assertThat(modernSummary.stream().filter(l -> l.startsWith("✓")).toList())
        .as("passed 2026-07-28 scenarios (required, pending, tasks); full log in %s", modern)
        .hasSize(REQUIRED_2026 + PENDING_2026.size() + TASKS_2026.size());
    for (String unscored : Stream.concat(PENDING_2026.stream(), TASKS_2026.stream()).toList()) {
      assertThat(modernSummary).anyMatch(l -> l.startsWith("✓ " + unscored + ":"));
    }
    // Passing scenarios must also have run their checks: a task that never got created would
    // leave the later checks out rather than failing them.
    assertThat(checkStatuses(modern, "tasks-lifecycle")).as("tasks-lifecycle checks")
        .containsEntry("sep-2663-tasks-get-status-completed", "SUCCESS")
        .containsEntry("sep-2663-tool-error-uses-completed-status", "SUCCESS")
        .containsEntry("sep-2663-tasks-get-status-failed", "SUCCESS")
        .containsEntry("sep-2663-cancel-ack-empty-result", "SUCCESS");
    assertThat(checkStatuses(modern, "tasks-mrtr-input")).as("tasks-mrtr-input checks")
        .containsEntry("tasks-mrtr-tasks-update-resumes", "SUCCESS")
        .containsEntry("tasks-mrtr-partial-fulfillment", "SUCCESS");
    assertThat(checkStatuses(modern, "tasks-mrtr-composition"))
        .containsEntry("sep-2663-mrtr-synchronous-before-task-creation", "SUCCESS");
    assertThat(checkStatusesOutside(modern, "no-scenario-is-excluded"))
        .as("WARNING or FAILURE checks in %s", modern)
        .doesNotContain("WARNING", "FAILURE");
    assertThat(modernRun.exit()).as("2026-07-28 conformance exit status").isZero();
  }

  /** The statuses of every check of every scenario whose folder does not start with a prefix. */
  static List<String> checkStatusesOutside(Path results, String excludedPrefix)
      throws IOException {
    List<String> statuses = new ArrayList<>();
    try (Stream<Path> files = Files.walk(results)) {
      for (Path file : files.filter(f -> f.getFileName().toString().equals("checks.json")
          && !f.getParent().getFileName().toString().startsWith("server-" + excludedPrefix))
          .toList()) {
        for (JsonNode check : McpJson.standard().parse(Files.readString(file))) {
          statuses.add(check.path("status").asString(""));
        }
      }
    }
    return statuses;
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
