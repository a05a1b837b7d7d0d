package dev.keel.bench.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The driver's result lines (one JSON object per run), and medians over repetitions. */
final class Runs {

  private final List<JsonNode> runs;

  private Runs(List<JsonNode> runs) {
    this.runs = runs;
  }

  static Runs read(Path file) throws IOException {
    JsonMapper json = JsonMapper.builder().build();
    List<JsonNode> runs = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      if (!line.isBlank()) {
        runs.add(json.readTree(line));
      }
    }
    return new Runs(runs);
  }

  static Runs of(List<Map<String, Object>> results) {
    JsonMapper json = JsonMapper.builder().build();
    List<JsonNode> runs = new ArrayList<>();
    for (Map<String, Object> r : results) {
      runs.add(json.valueToTree(r));
    }
    return new Runs(runs);
  }

  List<JsonNode> all() {
    return runs;
  }

  /** Returns the runs of one server and scenario. */
  List<JsonNode> of(String server, String scenario) {
    List<JsonNode> matching = new ArrayList<>();
    for (JsonNode r : runs) {
      if (server.equals(r.path("server").asString()) && scenario.equals(r.path("scenario").asString())) {
        matching.add(r);
      }
    }
    return matching;
  }

  /** Returns the median of {@code field} over the runs of a server and scenario. */
  OptionalDouble median(String server, String scenario, String field) {
    double[] values = of(server, scenario).stream().filter(r -> r.has(field))
        .mapToDouble(r -> r.get(field).asDouble()).sorted().toArray();
    if (values.length == 0) {
      return OptionalDouble.empty();
    }
    int mid = values.length / 2;
    return OptionalDouble.of(values.length % 2 == 1 ? values[mid]
        : (values[mid - 1] + values[mid]) / 2);
  }

  /** Returns the sum of {@code field} over the runs of a server and scenario. */
  long sum(String server, String scenario, String field) {
    return of(server, scenario).stream().mapToLong(r -> r.path(field).asLong(0)).sum();
  }

  int count(String server, String scenario) {
    return of(server, scenario).size();
  }
}
