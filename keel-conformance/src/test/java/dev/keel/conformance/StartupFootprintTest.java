package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code keel fixtures} loads before it listens, read from the JVM's class-loading log of a
 * real process: the work start-up was cut by (issue 22) must stay cut. Each class named here cost
 * a measured share of the start on one core: picocli's reflection over every subcommand (about
 * half a second) and the platform MBean server Jetty starts to ask one question (0.1-0.2 s).
 */
class StartupFootprintTest {

  @TempDir
  Path scratch;

  @Test
  void fixturesLoadsNeitherTheOtherSubcommandsNorThePlatformMBeanServer() throws Exception {
    String loaded = classesLoadedBeforeListening("fixtures");
    // the controls: the log is the one of a server that started
    assertThat(loaded).contains(" dev.keel.cli.FixturesCommand ")
        .contains(" org.eclipse.jetty.server.Server ");
    for (String other : List.of("AgentCommand", "CallCommand", "ToolsCommand", "LoginCommand",
        "ConformanceClientCommand", "ListCommand")) {
      assertThat(loaded).as("another subcommand loaded").doesNotContain(" dev.keel.cli." + other);
    }
    assertThat(loaded).as("the platform MBean server started")
        .doesNotContain(" javax.management.MBeanServerFactory ")
        .doesNotContain(" java.lang.management.ManagementFactory ");
    // a lone node builds no session-route cache (the only Caffeine its start built), and the
    // dispatcher makes a method's handler when that method is first called, not all of them
    assertThat(loaded).contains(" dev.keel.mcp.server.internal.dispatch.Dispatcher ")
        .doesNotContain(" com.github.benmanes.caffeine.cache.Caffeine ")
        .doesNotContain("dev.keel.mcp.server.internal.dispatch.Dispatcher$$Lambda");
    // every fixture schema, the conformance suite's $defs/$ref/allOf/anyOf/if one included, is
    // validated without building the general JSON Schema validator
    assertThat(loaded).contains(" dev.keel.mcp.core.jsonschema.SimpleSchema ")
        .doesNotContain(" com.networknt.schema.SchemaRegistry ");
  }

  @Test
  void theAgentsToolSchemasNeedNotTheGeneralJsonSchemaValidator() throws Exception {
    String loaded = classesLoadedBeforeListening("agent");
    assertThat(loaded).contains(" dev.keel.cli.AgentCommand ")
        .contains(" dev.keel.mcp.core.jsonschema.SimpleSchema ")
        .doesNotContain(" com.networknt.schema.SchemaRegistry ");
  }

  @Test
  void theAgentOpensItsSampleOnFirstUseNotAtStart() throws Exception {
    // opening the sample loads H2's engine and the pool: about a quarter of an idle agent
    String loaded = classesLoadedBeforeListening("agent");
    assertThat(loaded).contains(" dev.keel.agent.internal.db.Database ")
        .doesNotContain(" org.h2.engine.Database ")
        .doesNotContain(" com.zaxxer.hikari.HikariDataSource ");
  }

  private String classesLoadedBeforeListening(String subcommand) throws Exception {
    Path log = scratch.resolve(subcommand + "-classes.log");
    List<String> command = new java.util.ArrayList<>(KeelProcess.command(subcommand, "--port",
        "0"));
    command.add(1, "-Xlog:class+load=info:file=" + log);
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    try (BufferedReader out = new BufferedReader(
        new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).startsWith("listening on http://127.0.0.1:");
    } finally {
      p.destroy();
      p.waitFor(20, TimeUnit.SECONDS);
      p.destroyForcibly();
    }
    return Files.readString(log, StandardCharsets.UTF_8);
  }
}
