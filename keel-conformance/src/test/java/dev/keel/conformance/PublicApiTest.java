package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The public surface of the library modules, listed in {@code public-api.txt}, so that new API
 * shows up as a reviewed diff. Public types under an {@code internal} package are not API.
 * When this fails after a deliberate change, update the file with the list it prints.
 */
class PublicApiTest {

  static final List<String> MODULES = List.of("keel-core", "keel-server", "keel-http",
      "keel-client", "keel-agent", "keel-redis", "keel-micrometer", "keel-opentelemetry",
      "keel-spring-boot-starter");

  @Test
  void publicSurfaceIsExactlyTheReviewedList() throws Exception {
    TreeSet<String> actual = new TreeSet<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      boolean tests = entry.contains("test-classes") || entry.endsWith("-tests.jar");
      if (!tests && MODULES.stream().anyMatch(m -> entry.contains(File.separator + m
          + File.separator) || entry.contains(File.separator + m + "-"))) {
        for (String name : classNames(Path.of(entry))) {
          if (isApi(name)) {
            actual.add(name);
          }
        }
      }
    }
    List<String> expected = Files.readAllLines(
        Path.of("src/test/resources/public-api.txt"), StandardCharsets.UTF_8).stream()
        .map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    assertThat(actual).as("public API; the current list is:%n%s",
        String.join(System.lineSeparator(), actual)).containsExactlyElementsOf(expected);
  }

  private static boolean isApi(String className) throws ClassNotFoundException {
    if (!(className.startsWith("dev.keel.mcp.") || className.startsWith("dev.keel.agent."))
        || className.contains(".internal.")
        || className.endsWith("package-info")) {
      return false;
    }
    Class<?> type = Class.forName(className, false, PublicApiTest.class.getClassLoader());
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (!Modifier.isPublic(c.getModifiers()) || c.isAnonymousClass() || c.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  static List<String> classNames(Path entry) throws IOException {
    List<String> names = new ArrayList<>();
    if (Files.isDirectory(entry)) {
      try (Stream<Path> files = Files.walk(entry)) {
        files.filter(f -> f.toString().endsWith(".class")).forEach(f -> names.add(
            toName(entry.relativize(f).toString().replace(File.separatorChar, '/'))));
      }
    } else if (entry.toString().endsWith(".jar") && Files.exists(entry)) {
      try (JarFile jar = new JarFile(entry.toFile())) {
        Enumeration<JarEntry> entries = jar.entries();
        while (entries.hasMoreElements()) {
          String n = entries.nextElement().getName();
          if (n.endsWith(".class") && !n.startsWith("META-INF")) {
            names.add(toName(n));
          }
        }
      }
    }
    return names;
  }

  private static String toName(String path) {
    return path.substring(0, path.length() - ".class".length()).replace('/', '.');
  }
}
