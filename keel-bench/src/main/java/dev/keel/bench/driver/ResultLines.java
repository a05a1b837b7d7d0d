package dev.keel.bench.driver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.json.JsonMapper;

/**
 * What every measuring program here shares: {@code --name value} options, and one JSON line per
 * result, printed and (with {@code --out FILE}) appended to the results file {@code Report}
 * reads.
 */
final class ResultLines {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private ResultLines() {}

  /**
   * Reads {@code --name value} pairs.
   *
   * @throws IllegalArgumentException for an argument that is not a name followed by its value
   */
  static Map<String, String> options(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      options.put(args[i].substring(2), args[++i]);
    }
    return options;
  }

  /** Returns a result as its JSON line. */
  static String line(Map<String, Object> result) {
    return JSON.writeValueAsString(result);
  }

  /** Appends a result's line to the {@code --out} file, when the options name one. */
  static void save(Map<String, String> options, Map<String, Object> result) {
    String out = options.get("out");
    if (out == null) {
      return;
    }
    try {
      Files.writeString(Path.of(out), line(result) + "\n", StandardCharsets.UTF_8,
          StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot append to " + out, e);
    }
  }

  /** Prints a result's line and saves it. */
  static void emit(Map<String, String> options, Map<String, Object> result) {
    System.out.println(line(result));
    save(options, result);
  }
}
