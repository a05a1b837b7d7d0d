package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The official conformance suite drives {@code keel conformance-client} through its client
 * scenarios: each scenario starts the suite's own mock server, runs the client against it and
 * scores what the mock saw. A scenario passes with no FAILURE, no WARNING, a clean exit (or the
 * error exit a scenario allows, when the client must refuse) and at least one check observed.
 * No scenario is listed as an expected failure.
 */
@OneJvm
class ConformanceClientTest {

  private static final Pattern SCORE =
      Pattern.compile("Passed: (\\d+)/(\\d+), (\\d+) failed, (\\d+) warnings");

  /** The scenarios in which the client must refuse to go on, and may exit with an error. */
  private static final java.util.Set<String> REFUSALS = java.util.Set.of(
      "auth/scope-retry-limit", "auth/resource-mismatch", "auth/iss-supported-missing",
      "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
      "auth/metadata-issuer-mismatch");

  @TempDir
  static Path scratch;
  private static Path client;

  @BeforeAll
  static void install() throws IOException, InterruptedException {
    NpmTools.ensureInstalled();
    // The suite splits its --command on spaces and runs it through a shell: a one-word script
    // keeps the long classpath out of that.
    client = scratch.resolve("keel-conformance-client");
    StringBuilder script = new StringBuilder("#!/bin/sh\nexec");
    for (String word : KeelProcess.command("conformance-client")) {
      script.append(" '").append(word.replace("'", "'\\''")).append('\'');
    }
    script.append(" \"$@\"\n");
    Files.writeString(client, script);
    Files.setPosixFilePermissions(client, PosixFilePermissions.fromString("rwx------"));
  }

  @ParameterizedTest(name = "0.1.16 {0}")
  @ValueSource(strings = {"initialize", "tools_call", "elicitation-sep1034-client-defaults",
      "sse-retry"})
  void legacyScenariosPass(String scenario) throws Exception {
    passes(NpmTools.LEGACY_SUITE, scenario, List.of());
  }

  @ParameterizedTest(name = "0.2.0-alpha.12 {0}")
  @ValueSource(strings = {"tools_call", "request-metadata", "sep-2322-client-request-state",
      "http-standard-headers", "http-custom-headers", "http-invalid-tool-headers",
      "json-schema-ref-no-deref", "json-schema-2020-12-preservation"})
  void statelessScenariosPass(String scenario) throws Exception {
    passes(NpmTools.SUITE_2026, scenario, List.of("--spec-version", "2026-07-28"));
  }

  /** Every auth scenario of 0.2.0-alpha.12 the 2026-07-28 revision requires (25). */
  @ParameterizedTest(name = "0.2.0-alpha.12 {0}")
  @ValueSource(strings = {"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2",
      "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
      "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
      "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
      "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration",
      "auth/resource-mismatch", "auth/offline-access-scope",
      "auth/offline-access-not-supported", "auth/authorization-server-migration",
      "auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing",
      "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
      "auth/metadata-issuer-mismatch"})
  void statelessAuthScenariosPass(String scenario) throws Exception {
    passes(NpmTools.SUITE_2026, scenario, List.of("--spec-version", "2026-07-28"));
  }

  /** The 2025-03-26 back-compat scenarios, on their own wire, in both suites. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"auth/2025-03-26-oauth-metadata-backcompat",
      "auth/2025-03-26-oauth-endpoint-fallback"})
  void backCompatAuthScenariosPass(String scenario) throws Exception {
    passes(NpmTools.SUITE_2026, scenario, List.of());
    passes(NpmTools.LEGACY_SUITE, scenario, List.of());
  }

  /** The client-credentials extension: private_key_jwt and client_secret_basic. */
  @ParameterizedTest(name = "0.2.0-alpha.12 {0}")
  @ValueSource(strings = {"auth/client-credentials-jwt", "auth/client-credentials-basic"})
  void clientCredentialsExtensionPasses(String scenario) throws Exception {
    passes(NpmTools.SUITE_2026, scenario, List.of("--spec-version", "2026-07-28", "--force"));
  }

  /** Every auth scenario of 0.1.16 marked 2025-11-25 or 2025-06-18 (14), on the legacy wire. */
  @ParameterizedTest(name = "0.1.16 {0}")
  @ValueSource(strings = {"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2",
      "auth/metadata-var3", "auth/basic-cimd", "auth/scope-from-www-authenticate",
      "auth/scope-from-scopes-supported", "auth/scope-omitted-when-undefined",
      "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
      "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none",
      "auth/pre-registration"})
  void legacyAuthScenariosPass(String scenario) throws Exception {
    passes(NpmTools.LEGACY_SUITE, scenario, List.of());
  }

  private static void passes(Path suite, String scenario, List<String> extra) throws Exception {
    List<String> args = new java.util.ArrayList<>(List.of("client", "--command",
        client.toString(), "--scenario", scenario, "--timeout", "60000", "-o",
        scratch.resolve("results").toString()));
    args.addAll(extra);
    NpmTools.Result run = NpmTools.run(NpmTools.suite(suite, args.toArray(String[]::new)),
        NpmTools.DIR, Duration.ofMinutes(3));
    String output = run.output();
    Matcher score = SCORE.matcher(output);
    assertThat(score.find()).as("a score line in:\n%s", output).isTrue();
    assertThat(Integer.parseInt(score.group(1))).as("checks passed in:\n%s", output)
        .isPositive().isEqualTo(Integer.parseInt(score.group(2)));
    assertThat(score.group(3)).as("failures in:\n%s", output).isEqualTo("0");
    assertThat(score.group(4)).as("warnings in:\n%s", output).isEqualTo("0");
    assertThat(output).as("scenario %s", scenario).contains("OVERALL: PASSED")
        .doesNotContain("CLIENT TIMED OUT");
    if (!REFUSALS.contains(scenario)) {
      assertThat(output).as("scenario %s", scenario).doesNotContain("CLIENT EXITED WITH ERROR");
    }
    assertThat(run.exit()).as("suite exit status for %s:\n%s", scenario, output).isZero();
  }
}
