package dev.keel.mcp.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The kit's public surface is the reviewed list in {@code keel-test-api.txt}, every public
 * declaration has Javadoc, and every file stays under 500 lines. When the list fails after a
 * deliberate change, update the file with the list the failure prints.
 */
class KitApiTest {

  static final Path MAIN = Path.of("src/main/java/dev/keel/mcp/test");

  @Test
  void publicTypesAreExactlyTheReviewedList() throws Exception {
    TreeSet<String> actual = new TreeSet<>();
    Path classes = Path.of("target/classes");
    try (Stream<Path> walk = Files.walk(classes)) {
      for (Path p : walk.filter(f -> f.toString().endsWith(".class")
          && !f.endsWith("module-info.class")).toList()) {
        String name = classes.relativize(p).toString().replace('/', '.').replace(".class", "");
        Class<?> type = Class.forName(name, false, KitApiTest.class.getClassLoader());
        if (isPublic(type)) {
          actual.add(type.getName());
        }
      }
    }
    List<String> expected = Files.readAllLines(Path.of("src/test/resources/keel-test-api.txt"),
        StandardCharsets.UTF_8).stream().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
    assertThat(actual).as("keel-test's public API; the current list is:%n%s",
        String.join(System.lineSeparator(), actual)).containsExactlyElementsOf(expected);
  }

  private static boolean isPublic(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (!Modifier.isPublic(c.getModifiers()) || c.isAnonymousClass() || c.isLocalClass()) {
        return false;
      }
    }
    return true;
  }

  @Test
  void everyPublicDeclarationHasJavadocAndEveryFileIsSmall() throws IOException {
    List<String> undocumented = new ArrayList<>();
    try (Stream<Path> walk = Files.list(MAIN)) {
      for (Path file : walk.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        assertThat(lines.size()).as(file + " lines").isLessThan(500);
        for (int i = 0; i < lines.size(); i++) {
          String line = lines.get(i).strip();
          if (!line.startsWith("public ")) {
            continue;
          }
          int j = i - 1;
          boolean override = false;
          while (j >= 0 && lines.get(j).strip().startsWith("@")) {
            override |= lines.get(j).strip().equals("@Override");
            j--;
          }
          if (!override && (j < 0 || !lines.get(j).strip().endsWith("*/"))) {
            undocumented.add(file.getFileName() + ":" + (i + 1) + " " + line);
          }
        }
      }
    }
    assertThat(undocumented).as("public declarations without Javadoc").isEmpty();
  }
}
