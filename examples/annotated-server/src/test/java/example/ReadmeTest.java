package example;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Keel's README shows this example's {@code Demo.java} and {@code DemoTest.java} verbatim from
 * their first import, the test right after the server, so the README's code is code the build
 * compiles and runs.
 */
class ReadmeTest {

  static String body(String source) throws Exception {
    String text = Files.readString(Path.of(source));
    return text.substring(text.indexOf("import ")).strip();
  }

  @Test
  void theReadmeShowsThisExampleVerbatim() throws Exception {
    String readme = Files.readString(Path.of("../../README.md"));
    String server = body("src/main/java/example/Demo.java");
    String test = body("src/test/java/example/DemoTest.java");
    assertThat(readme).contains(server).contains(test);
    assertThat(readme.indexOf(test)).isGreaterThan(readme.indexOf(server));
  }
}
