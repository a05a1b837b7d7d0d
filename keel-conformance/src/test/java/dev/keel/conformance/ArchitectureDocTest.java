package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md walks a {@code tools/call} through the code with {@code file:line}
 * references, each next to the code it points at. This keeps them true: a reference whose line no
 * longer holds its code fails the build, so the walk is updated with the code it describes.
 */
class ArchitectureDocTest {

  /** A table row: {@code | what | [`x.java:12`](../path/x.java#L12) | `code` |}. */
  static final Pattern ROW = Pattern.compile(
      "\\| \\[`[^`]+:(\\d+)`]\\(\\.\\./([^#)]+)#L(\\d+)\\) \\| `(.+)` \\|$");

  @Test
  void everyFileLineReferenceHoldsTheCodeItNames() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    List<String> lines = Files.readAllLines(root.resolve("docs/architecture.md"),
        StandardCharsets.UTF_8);
    List<String> wrong = new ArrayList<>();
    int references = 0;
    for (String line : lines) {
      Matcher m = ROW.matcher(line);
      if (!m.find()) {
        continue;
      }
      references++;
      int shown = Integer.parseInt(m.group(1));
      int linked = Integer.parseInt(m.group(3));
      String code = m.group(4).replace("\\|", "|");
      List<String> source = Files.readAllLines(root.resolve(m.group(2)), StandardCharsets.UTF_8);
      if (shown != linked || linked > source.size() || !source.get(linked - 1).contains(code)) {
        int actual = -1;
        for (int i = 0; i < source.size(); i++) {
          if (source.get(i).contains(code)) {
            actual = i + 1;
            break;
          }
        }
        wrong.add(m.group(2) + ":" + shown + " does not hold `" + code + "`"
            + (actual > 0 ? " (it is at line " + actual + ")" : " (nowhere in the file)"));
      }
    }
    assertThat(references).as("file:line references in docs/architecture.md")
        .isGreaterThan(20);
    assertThat(wrong).isEmpty();
  }
}
