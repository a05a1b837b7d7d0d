package dev.keel.mcp.test;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.CallToolResult;
import java.util.function.Consumer;
import org.opentest4j.AssertionFailedError;
import tools.jackson.databind.JsonNode;

/**
 * Assertions on one {@link ToolCall}: whether it succeeded, its text and structured content, its
 * JSON-RPC error, its progress. Every failure names the tool, the era, what was expected and what
 * came.
 *
 * <pre>{@code
 * assertThat(client.call("search", "{\"q\":\"keel\"}"))
 *     .succeeded()
 *     .textContains("3 hits")
 *     .hasStructured("$.hits[0].title", "Keel")
 *     .progress().isMonotonic().endsAt(3);
 * }</pre>
 */
public final class ToolCallAssert {

  private final ToolCall call;

  ToolCallAssert(ToolCall call) {
    this.call = call;
  }

  private String what() {
    return "tool " + call.tool() + (call.era() == null ? ""
        : " (" + call.era().name().toLowerCase(java.util.Locale.ROOT) + ")");
  }

  private AssertionFailedError fail(String expected) {
    return new AssertionFailedError("expected " + what() + " " + expected + " but "
        + call.describe().substring(what().length()).strip());
  }

  /** Checks that the call returned a result that is not a tool error. */
  public ToolCallAssert succeeded() {
    if (call.result() == null || call.result().failed()) {
      throw fail("to succeed");
    }
    return this;
  }

  /** Checks that the call returned a tool error ({@code isError: true}). */
  public ToolCallAssert isError() {
    if (call.result() == null || !call.result().failed()) {
      throw fail("to return a tool error (isError: true)");
    }
    return this;
  }

  /** Checks the result's text blocks, joined with newlines. */
  public ToolCallAssert hasText(String expected) {
    result("to return text \"" + expected + "\"");
    if (!expected.equals(call.text())) {
      throw new AssertionFailedError("expected " + what() + " to return text \"" + expected
          + "\" but it returned \"" + call.text() + "\"", expected, call.text());
    }
    return this;
  }

  /** Checks that the result's text contains {@code part}. */
  public ToolCallAssert textContains(String part) {
    result("to return text containing \"" + part + "\"");
    if (!call.text().contains(part)) {
      throw new AssertionFailedError("expected " + what() + " to return text containing \""
          + part + "\" but it returned \"" + call.text() + "\"", part, call.text());
    }
    return this;
  }

  /**
   * Checks one value of the structured content. The path is a JSON Pointer
   * ({@code /rows/0/name}) or dotted ({@code $.rows[0].name}); {@code expected} is a string,
   * number, boolean, null or a {@link JsonNode}, and numbers compare by value ({@code 3} equals
   * {@code 3.0}).
   */
  public ToolCallAssert hasStructured(String path, Object expected) {
    JsonNode actual = JsonPaths.at(structured(), path);
    JsonNode wanted = expected instanceof JsonNode n ? n : McpJson.standard().toTree(expected);
    if (actual.isMissingNode() || !sameValue(actual, wanted)) {
      String came = actual.isMissingNode() ? "nothing is there" : "it is " + actual;
      throw new AssertionFailedError("expected structured content of " + what() + " at " + path
          + " to be " + wanted + " but " + came + "; the content is " + structured(), wanted,
          actual.isMissingNode() ? null : actual);
    }
    return this;
  }

  /** Checks that the structured content has something at {@code path}. */
  public ToolCallAssert hasStructuredPath(String path) {
    if (JsonPaths.at(structured(), path).isMissingNode()) {
      throw new AssertionFailedError("expected structured content of " + what()
          + " to have a value at " + path + " but it has none; the content is " + structured());
    }
    return this;
  }

  /** Checks the whole structured content against a JSON text (numbers compare by value). */
  public ToolCallAssert hasStructuredContent(String json) {
    JsonNode wanted = McpJson.standard().parse(json);
    if (!sameValue(structured(), wanted)) {
      throw new AssertionFailedError("expected structured content of " + what() + " to be "
          + wanted + " but it was " + structured(), wanted, structured());
    }
    return this;
  }

  /** Checks that the server answered with a JSON-RPC error of this code. */
  public ErrorAssert failedWith(int code) {
    if (call.error() == null) {
      throw fail("to fail with JSON-RPC error " + code);
    }
    return new ErrorAssert(call.error(), what()).hasCode(code);
  }

  /** Checks that the call was cancelled by the client. */
  public ToolCallAssert wasCancelled() {
    if (!call.cancelled()) {
      throw fail("to be cancelled");
    }
    return this;
  }

  /** Checks that the call timed out at the client. */
  public ToolCallAssert timedOut() {
    if (!call.timedOut()) {
      throw fail("to time out");
    }
    return this;
  }

  /** Checks that the call ran as a task. */
  public ToolCallAssert ranAsTask() {
    if (call.task() == null || call.task().taskId() == null) {
      throw fail("to run as a task");
    }
    return this;
  }

  /** Returns assertions on the call's progress reports. */
  public ProgressAssert progress() {
    return new ProgressAssert(call.progress(), what());
  }

  /** Runs {@code check} on the result, which must exist. */
  public ToolCallAssert satisfies(Consumer<CallToolResult> check) {
    result("to return a result");
    check.accept(call.result());
    return this;
  }

  /** Returns the call, for anything else. */
  public ToolCall call() {
    return call;
  }

  private void result(String expected) {
    if (call.result() == null) {
      throw fail(expected);
    }
  }

  private JsonNode structured() {
    result("to return structured content");
    JsonNode s = call.result().structuredContent();
    if (s == null) {
      throw new AssertionFailedError("expected " + what() + " to return structured content but "
          + "it returned none; " + call.describe());
    }
    return s;
  }

  /** Deep equality where numbers compare by value, not by type. */
  static boolean sameValue(JsonNode a, JsonNode b) {
    if (a.isNumber() && b.isNumber()) {
      return a.decimalValue().compareTo(b.decimalValue()) == 0;
    }
    if (a.isObject() && b.isObject()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (String name : a.propertyNames()) {
        if (!b.has(name) || !sameValue(a.get(name), b.get(name))) {
          return false;
        }
      }
      return true;
    }
    if (a.isArray() && b.isArray()) {
      if (a.size() != b.size()) {
        return false;
      }
      for (int i = 0; i < a.size(); i++) {
        if (!sameValue(a.get(i), b.get(i))) {
          return false;
        }
      }
      return true;
    }
    return a.equals(b);
  }
}
