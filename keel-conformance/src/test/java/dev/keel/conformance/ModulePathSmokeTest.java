package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.module.Configuration;
import java.lang.module.ResolvedModule;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Keel's library modules really work as modules: a small application ({@link ModulePathMain})
 * runs in a JVM of its own with exactly the resolved modules on the module path (Keel's and what
 * they require, nothing else) and itself on the class path, and serves and calls a tool in both
 * eras. The build's own tests run on the class path, where a missing {@code requires} or an
 * unexported package that Jackson or Jetty reflect on would go unnoticed.
 */
class ModulePathSmokeTest {

  @Test
  void aServerAndAClientRunWithTheLibrariesOnTheModulePath() throws Exception {
    Configuration resolved = ModuleBoundariesTest.resolveLibraries();
    String modulePath = resolved.modules().stream()
        .map(m -> m.reference().location().orElseThrow())
        .filter(uri -> "file".equals(uri.getScheme())) // not the runtime image's own modules
        .map(uri -> Path.of(uri).toString()).distinct()
        .collect(Collectors.joining(File.pathSeparator));
    String ownClasses = Path.of(ModulePathMain.class.getProtectionDomain().getCodeSource()
        .getLocation().toURI()).toString();
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "--module-path", modulePath,
        "--add-modules", "dev.keel.mcp.http,dev.keel.mcp.client",
        "-cp", ownClasses, ModulePathMain.class.getName()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    boolean ended = p.waitFor(120, TimeUnit.SECONDS);
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!ended) {
      p.destroyForcibly();
    }
    assertThat(ended).as(output).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).contains("ok LEGACY: Hello, Ada", "ok MODERN: Hello, Ada");
    assertThat(resolved.modules().stream().map(ResolvedModule::name))
        .as("what the libraries pull in").doesNotContain("org.junit.jupiter.api")
        .contains("tools.jackson.databind", "org.eclipse.jetty.server");
  }
}
