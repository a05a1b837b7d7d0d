package dev.keel.mcp.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.opentest4j.AssertionFailedError;

/**
 * Assertions on the progress reports of one call: how many, in order, and where they ended.
 *
 * <pre>{@code
 * assertThat(client.call("import", "{}")).progress()
 *     .isMonotonic().hasCount(3).endsAt(3, 3.0);
 * }</pre>
 */
public final class ProgressAssert {

  private final List<ToolCall.Progress> reports;
  private final String what;

  ProgressAssert(List<ToolCall.Progress> reports, String what) {
    this.reports = reports;
    this.what = what;
  }

  /** Checks that there was at least one report. */
  public ProgressAssert isNotEmpty() {
    if (reports.isEmpty()) {
      throw new AssertionFailedError("expected progress from " + what + " but none came");
    }
    return this;
  }

  /** Checks how many reports came. */
  public ProgressAssert hasCount(int expected) {
    if (reports.size() != expected) {
      throw new AssertionFailedError("expected " + expected + " progress report(s) from " + what
          + " but got " + reports.size() + ": " + values(), expected, reports.size());
    }
    return this;
  }

  /** Checks that every report went further than the one before (progress only increases). */
  public ProgressAssert isMonotonic() {
    for (int i = 1; i < reports.size(); i++) {
      if (!(reports.get(i).progress() > reports.get(i - 1).progress())) {
        throw new AssertionFailedError("expected the progress of " + what + " to increase at "
            + "every report but report " + (i + 1) + " (" + reports.get(i).progress()
            + ") did not exceed report " + i + " (" + reports.get(i - 1).progress() + "): "
            + values());
      }
    }
    return this;
  }

  /** Checks the last report's progress. */
  public ProgressAssert endsAt(double expected) {
    isNotEmpty();
    double last = reports.get(reports.size() - 1).progress();
    if (Double.compare(last, expected) != 0) {
      throw new AssertionFailedError("expected the progress of " + what + " to end at "
          + expected + " but it ended at " + last + ": " + values(), expected, last);
    }
    return this;
  }

  /** Checks the last report's progress and total. */
  public ProgressAssert endsAt(double expected, Double total) {
    endsAt(expected);
    Double last = reports.get(reports.size() - 1).total();
    if (!Objects.equals(last, total)) {
      throw new AssertionFailedError("expected the last progress of " + what + " to have total "
          + total + " but it had " + last, total, last);
    }
    return this;
  }

  /** Checks the reports' messages, all of them, in order. */
  public ProgressAssert hasMessages(String... expected) {
    List<String> messages = new ArrayList<>();
    for (ToolCall.Progress p : reports) {
      messages.add(p.message());
    }
    if (!messages.equals(List.of(expected))) {
      throw new AssertionFailedError("expected the progress messages of " + what + " to be "
          + List.of(expected) + " but they were " + messages, List.of(expected), messages);
    }
    return this;
  }

  /** Returns the reports, for anything else. */
  public List<ToolCall.Progress> reports() {
    return reports;
  }

  private String values() {
    List<Double> values = new ArrayList<>();
    for (ToolCall.Progress p : reports) {
      values.add(p.progress());
    }
    return values.toString();
  }
}
