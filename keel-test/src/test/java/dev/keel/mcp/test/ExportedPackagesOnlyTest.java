package dev.keel.mcp.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kit is written as a user's code would be: with the exported packages of the other modules
 * only. Issue 15's done item 2 asks for a transport pair "using only exported packages"; this
 * holds the sources and the compiled classes to it, so an {@code .internal.} reference (an
 * import, a qualified name, a reflective string) fails the build.
 */
class ExportedPackagesOnlyTest {

  /** A Keel package under {@code internal}, in source (dots) or class-file (slashes) form. */
  static final Pattern INTERNAL = Pattern.compile("dev[./]keel[./][A-Za-z0-9_.$/]*[./]internal\\b");

  @Test
  void mainSourcesNameNoInternalPackageOfAnyKeelModule() throws IOException {
    List<String> offenders = new ArrayList<>();
    for (Path file : files(Path.of("src/main/java"), ".java")) {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      Matcher m = INTERNAL.matcher(text);
      while (m.find()) {
        offenders.add(file + ": " + m.group());
      }
      if (file.endsWith("module-info.java")) {
        assertThat(text).as("the kit's module exports its one package")
            .contains("exports dev.keel.mcp.test;");
        continue;
      }
      // The kit's own package has no internal part either: everything in it is the kit's API.
      assertThat(text).as(file.toString()).contains("package dev.keel.mcp.test;");
    }
    assertThat(files(Path.of("src/main/java"), ".java")).as("the kit's sources").isNotEmpty();
    assertThat(offenders).as("references to internal packages").isEmpty();
  }

  @Test
  void compiledClassesReferenceNoInternalPackage() throws IOException {
    List<Path> classes = files(Path.of("target/classes"), ".class");
    assertThat(classes).as("compiled classes of the kit").isNotEmpty();
    List<String> offenders = new ArrayList<>();
    for (Path file : classes) {
      // Class names in the constant pool are UTF-8 with slashes: a plain byte scan finds them.
      String pool = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
      Matcher m = INTERNAL.matcher(pool);
      while (m.find()) {
        offenders.add(file.getFileName() + ": " + m.group());
      }
    }
    assertThat(offenders).as("compiled references to internal packages").isEmpty();
  }

  @Test
  void theScanFindsAnInternalReferenceWhenThereIsOne() {
    // The check can fail: both spellings of an internal reference are caught.
    assertThat(INTERNAL.matcher("import dev.keel.mcp.client.internal.SessionPins;").find())
        .isTrue();
    assertThat(INTERNAL.matcher("Ldev/keel/mcp/core/internal/cancel/CancellationSource;").find())
        .isTrue();
    assertThat(INTERNAL.matcher("import dev.keel.mcp.server.transport.ServerEngine;").find())
        .isFalse();
  }

  private static List<Path> files(Path root, String suffix) throws IOException {
    if (!Files.isDirectory(root)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(root)) {
      return walk.filter(p -> p.toString().endsWith(suffix)).sorted().toList();
    }
  }
}
