package dev.keel.mcp.core.schema;

import java.util.List;

/**
 * Suggested values for an argument (at most 100 are sent).
 *
 * @param values the suggestions
 * @param total how many exist in all, or null
 * @param hasMore whether more exist than were sent, or null
 */
public record Completion(List<String> values, Integer total, Boolean hasMore) {

  /** The most values one completion may carry. */
  public static final int MAX_VALUES = 100;

  /** Copies the values, keeping the first 100. */
  public Completion {
    values = values == null ? List.of()
        : List.copyOf(values.size() > MAX_VALUES ? values.subList(0, MAX_VALUES) : values);
  }

  /** Returns the values of {@code all} that start with {@code prefix}, capped at 100. */
  public static Completion matching(List<String> all, String prefix) {
    List<String> hits = all.stream().filter(v -> v.startsWith(prefix == null ? "" : prefix))
        .toList();
    return new Completion(hits, hits.size(), hits.size() > MAX_VALUES);
  }

  /** Returns an empty completion. */
  public static Completion empty() {
    return new Completion(List.of(), 0, false);
  }
}
