package dev.keel.mcp.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The example in docs/testing-kit.md is this compiled, running test source, verbatim from its
 * first import: an example that drifts from its test fails the build. (The README's server
 * example and its test are examples/annotated-server, checked there.)
 */
class DocsSnippetsTest {

  static final Path TESTS = Path.of("src/test/java/dev/keel/mcp/test");

  static String body(Path source) throws IOException {
    String text = Files.readString(source, StandardCharsets.UTF_8);
    return text.substring(text.indexOf("import ")).strip();
  }

  static String read(String path) throws IOException {
    return Files.readString(Path.of(path), StandardCharsets.UTF_8);
  }

  @Test
  void theAnnotationsPageShowsItsExampleVerbatimAndTheReadmeLinksIt() throws IOException {
    assertThat(read("../docs/annotations.md")).as("docs/annotations.md's example")
        .contains(body(Path.of("../examples/annotated-server/src/main/java/example/Bookshop.java")));
    assertThat(read("../README.md")).contains("[docs/annotations.md](docs/annotations.md)");
  }

  @Test
  void theKitsPageShowsItsCompleteExampleVerbatimAndTheReadmeLinksIt() throws IOException {
    assertThat(read("../docs/testing-kit.md")).as("docs/testing-kit.md's example")
        .contains(body(TESTS.resolve("docs/ImportToolTest.java")));
    assertThat(read("../README.md")).contains("[docs/testing-kit.md](docs/testing-kit.md)");
    assertThat(read("../docs/architecture.md")).contains("keel-test");
  }
}
