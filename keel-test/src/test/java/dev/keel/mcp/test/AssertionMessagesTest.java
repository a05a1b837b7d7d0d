package dev.keel.mcp.test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.mcp.client.Era;
import dev.keel.mcp.core.McpException;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.RequestTimeoutException;
import dev.keel.mcp.core.schema.CallToolResult;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.core.schema.TextContent;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** Every assertion can fail, and its message names what was expected and what came. */
class AssertionMessagesTest {

  static ToolCall result(String text) {
    return new ToolCall("echo", Era.LEGACY, CallToolResult.text(text), null, null, List.of(),
        null);
  }

  static ToolCall structured(String json) {
    return new ToolCall("stats", Era.MODERN, new CallToolResult(
        List.of(new TextContent("s", null, null)), McpJson.standard().parse(json), null, null),
        null, null, List.of(), null);
  }

  static ToolCall error(int code, String message) {
    return new ToolCall("echo", Era.MODERN, null, new McpException(code, message), null,
        List.of(), null);
  }

  static ToolCall progress(double... values) {
    List<ToolCall.Progress> reports = new java.util.ArrayList<>();
    for (double v : values) {
      reports.add(new ToolCall.Progress(v, 3.0, "at " + v));
    }
    return new ToolCall("count", Era.LEGACY, CallToolResult.text("done"), null, null, reports,
        null);
  }

  @Test
  void textNamesTheExpectedAndTheActualText() {
    assertThatThrownBy(() -> McpAssertions.assertThat(result("ho")).hasText("hi"))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessage("expected tool echo (legacy) to return text \"hi\" but it returned \"ho\"");
    assertThatThrownBy(() -> McpAssertions.assertThat(result("ho")).textContains("hi"))
        .hasMessageContaining("containing \"hi\" but it returned \"ho\"");
    assertThatCode(() -> McpAssertions.assertThat(result("hi")).succeeded().hasText("hi"))
        .doesNotThrowAnyException();
  }

  @Test
  void successAndToolErrorsNameTheOutcomeThatCame() {
    assertThatThrownBy(() -> McpAssertions.assertThat(error(-32602, "Unknown tool: echo"))
        .succeeded()).hasMessage("expected tool echo (modern) to succeed but failed with "
            + "JSON-RPC error -32602 \"Unknown tool: echo\"");
    assertThatThrownBy(() -> McpAssertions.assertThat(result("fine")).isError())
        .hasMessage("expected tool echo (legacy) to return a tool error (isError: true) but "
            + "returned \"fine\"");
    ToolCall toolError = new ToolCall("echo", Era.LEGACY, CallToolResult.error("boom"), null,
        null, List.of(), null);
    assertThatThrownBy(() -> McpAssertions.assertThat(toolError).succeeded())
        .hasMessage("expected tool echo (legacy) to succeed but returned a tool error \"boom\"");
    ToolCall late = new ToolCall("echo", Era.LEGACY, null, null,
        new RequestTimeoutException("tools/call", Duration.ofMillis(5)), List.of(), null);
    assertThatThrownBy(() -> McpAssertions.assertThat(late).wasCancelled())
        .hasMessageStartingWith("expected tool echo (legacy) to be cancelled but failed locally: "
            + "RequestTimeoutException");
    assertThatCode(() -> McpAssertions.assertThat(late).timedOut()).doesNotThrowAnyException();
  }

  @Test
  void errorsNameTheExpectedAndTheActualCodeAndMessage() {
    assertThatThrownBy(() -> McpAssertions.assertThat(error(-32602, "Unknown tool: echo"))
        .failedWith(-32601)).hasMessage("expected tool echo (modern) to fail with JSON-RPC "
            + "error code -32601 but the code was -32602 (\"Unknown tool: echo\")");
    assertThatThrownBy(() -> McpAssertions.assertThat(error(-32602, "Unknown tool: echo"))
        .failedWith(-32602).messageContains("Invalid")).hasMessage("expected tool echo (modern)'s"
            + " error message to contain \"Invalid\" but it was \"Unknown tool: echo\" (code "
            + "-32602)");
    assertThatThrownBy(() -> McpAssertions.assertThat(result("ok")).failedWith(-32602))
        .hasMessage("expected tool echo (legacy) to fail with JSON-RPC error -32602 but returned"
            + " \"ok\"");
    assertThatThrownBy(() -> McpAssertions.assertThatError(() -> { }))
        .hasMessage("expected the request to fail with a JSON-RPC error but it succeeded");
    assertThatThrownBy(() -> McpAssertions.assertThatError(() -> {
      throw new IllegalStateException("local");
    })).hasMessage("expected the request to fail with a JSON-RPC error but it failed with "
        + "IllegalStateException: local");
  }

  @Test
  void structuredContentNamesThePathTheExpectedValueAndWhatIsThere() {
    ToolCall call = structured("{\"total\":2,\"rows\":[{\"name\":\"a\"}]}");
    assertThatCode(() -> McpAssertions.assertThat(call).hasStructured("$.total", 2.0)
        .hasStructured("rows[0].name", "a").hasStructured("/rows/0/name", "a")
        .hasStructuredPath("$.rows")).doesNotThrowAnyException();
    assertThatThrownBy(() -> McpAssertions.assertThat(call).hasStructured("$.total", 3))
        .hasMessageStartingWith("expected structured content of tool stats (modern) at $.total "
            + "to be 3 but it is 2; the content is ");
    assertThatThrownBy(() -> McpAssertions.assertThat(call).hasStructured("$.rows[1].name", "b"))
        .hasMessageContaining("at $.rows[1].name to be \"b\" but nothing is there");
    assertThatThrownBy(() -> McpAssertions.assertThat(call)
        .hasStructuredContent("{\"total\":2}"))
        .hasMessageContaining("to be {\"total\":2} but it was {\"total\":2,\"rows\"");
    assertThatThrownBy(() -> McpAssertions.assertThat(result("plain")).hasStructured("$.a", 1))
        .hasMessageContaining("to return structured content but it returned none");
  }

  @Test
  void progressNamesTheReportsThatCame() {
    assertThatCode(() -> McpAssertions.assertThat(progress(1, 2, 3)).progress().isMonotonic()
        .hasCount(3).endsAt(3, 3.0).hasMessages("at 1.0", "at 2.0", "at 3.0"))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> McpAssertions.assertThat(progress(1, 3, 2)).progress()
        .isMonotonic()).hasMessage("expected the progress of tool count (legacy) to increase at "
            + "every report but report 3 (2.0) did not exceed report 2 (3.0): [1.0, 3.0, 2.0]");
    assertThatThrownBy(() -> McpAssertions.assertThat(progress(1, 2)).progress().hasCount(3))
        .hasMessage("expected 3 progress report(s) from tool count (legacy) but got 2: "
            + "[1.0, 2.0]");
    assertThatThrownBy(() -> McpAssertions.assertThat(progress(1, 2)).progress().endsAt(3))
        .hasMessage("expected the progress of tool count (legacy) to end at 3.0 but it ended at "
            + "2.0: [1.0, 2.0]");
    assertThatThrownBy(() -> McpAssertions.assertThat(progress()).progress().isNotEmpty())
        .hasMessage("expected progress from tool count (legacy) but none came");
  }

  @Test
  void notificationsNameWhatWasExpectedAndWhatArrived() {
    RecordedNotifications recorded = new RecordedNotifications();
    recorded.record("notifications/tools/list_changed", null);
    recorded.record("notifications/message", McpJson.standard().parseObject(
        "{\"level\":\"info\",\"data\":\"imported 3 rows\"}"));
    assertThatCode(() -> McpAssertions.assertThat(recorded)
        .contains("notifications/tools/list_changed").hasCount("notifications/message", 1)
        .hasLog(LoggingLevel.INFO, "3 rows").contains("notifications/message", "$.level", "info")
        .doesNotContain("notifications/resources/updated")).doesNotThrowAnyException();
    assertThatThrownBy(() -> McpAssertions.assertThat(recorded)
        .contains("notifications/resources/updated"))
        .hasMessage("expected a notifications/resources/updated notification but received: "
            + "notifications/tools/list_changed, notifications/message");
    assertThatThrownBy(() -> McpAssertions.assertThat(recorded)
        .hasLog(LoggingLevel.ERROR, "3 rows"))
        .hasMessage("expected a log message at level error containing \"3 rows\" but the log "
            + "messages were [info: imported 3 rows]");
    assertThatThrownBy(() -> McpAssertions.assertThat(recorded)
        .arrives("notifications/prompts/list_changed", Duration.ofMillis(50)))
        .hasMessageStartingWith("expected 1 notifications/prompts/list_changed notification(s) "
            + "within 50 ms but got 0; received: notifications/tools/list_changed");
    assertThatThrownBy(() -> McpAssertions.assertThat(recorded)
        .hasCount("notifications/tools/list_changed", 2))
        .hasMessageStartingWith("expected 2 notifications/tools/list_changed notification(s) "
            + "but 1 came");
    assertThatThrownBy(() -> McpAssertions.assertThat(recorded)
        .contains("notifications/message", "$.level", "debug"))
        .hasMessageContaining("with $.level = \"debug\" but the ones that came had params");
  }
}
