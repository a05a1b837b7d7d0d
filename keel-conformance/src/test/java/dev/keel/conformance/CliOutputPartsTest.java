package dev.keel.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.keel.cli.host.SamplingCommand;
import dev.keel.cli.output.LogLines;
import dev.keel.cli.output.StatusLine;
import dev.keel.cli.output.Table;
import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.LoggingLevel;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pieces {@code keel call} prints with, given text in and read back: tables from the shapes
 * tools answer with, log lines, the status line off a terminal, and splitting a
 * {@code --sampling-command} into words without a shell.
 */
class CliOutputPartsTest {

  private static String printed(Table table, int maxWidth) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    table.print(new PrintStream(bytes, true, StandardCharsets.UTF_8), Table.MAX_COLUMN,
        maxWidth);
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void arraysOfObjectsAndObjectsHoldingOneBecomeTables() {
    Table rows = Table.of(McpJson.standard().parse(
        "[{\"id\":1,\"name\":\"a\"},{\"id\":22,\"note\":null,\"tags\":[1,2]}]"));
    assertThat(printed(rows, 0)).isEqualTo("""
        id  name  note  tags
        --  ----  ----  -----
        1   a
        22        NULL  [1,2]
        (2 rows)
        """);
    Table wrapped = Table.of(McpJson.standard().parse(
        "{\"count\":1,\"sources\":[{\"name\":\"shop\"}]}"));
    assertThat(printed(wrapped, 0)).isEqualTo("name\n----\nshop\n(1 row)\ncount: 1\n");
    assertThat(Table.of(McpJson.standard().parse("{\"a\":[{\"x\":1}],\"b\":{\"y\":2}}")))
        .as("more structure than one table").isNull();
    assertThat(Table.of(McpJson.standard().parse("{\"text\":\"hi\"}"))).isNull();
  }

  @Test
  void aTableFitsTheWidthByCuttingItsWidestColumnWithAnEllipsis() {
    Table table = Table.of(McpJson.standard().parse("{\"columns\":[\"k\",\"v\"],\"rows\":"
        + "[[\"key\",\"" + "v".repeat(60) + "\"],[\"x\\ny\",\"\\u001b[31mred\"]]}"));
    String out = printed(table, 30);
    assertThat(out.lines()).allSatisfy(l -> assertThat(l.length()).isLessThanOrEqualTo(30));
    assertThat(out).contains("key  " + "v".repeat(24) + "…").contains("x⏎y")
        .doesNotContain("\u001b");
  }

  @Test
  void logLinesNameTheLevelAndLoggerAndHideWhatIsBelowTheThreshold() {
    assertThat(LogLines.format(McpJson.standard().parseObject(
        "{\"level\":\"warning\",\"logger\":\"db\",\"data\":\"slow\\u0007 query\"}"),
        LoggingLevel.INFO)).isEqualTo("keel: [warning] db: slow\\u0007 query");
    assertThat(LogLines.format(McpJson.standard().parseObject(
        "{\"level\":\"error\",\"data\":{\"code\":7}}"), LoggingLevel.INFO))
        .isEqualTo("keel: [error] {\"code\":7}");
    assertThat(LogLines.format(McpJson.standard().parseObject(
        "{\"level\":\"debug\",\"data\":\"x\"}"), LoggingLevel.INFO)).isNull();
  }

  @Test
  void offATerminalTheStatusLineWritesPlainLinesOnly() throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StatusLine status = new StatusLine(new PrintStream(bytes, true, StandardCharsets.UTF_8),
        false, "slow");
    status.start();
    Thread.sleep(500);
    status.onProgress(1, 2.0, "half");
    status.message("keel: [info] a log line");
    status.finish();
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo(
        "[###############---------------]  50%  half\nkeel: [info] a log line\n");
  }

  @Test
  void aSamplingCommandIsSplitIntoWordsWithoutAShell() {
    assertThat(SamplingCommand.words("llm -m 'big model' --say \"a b\" x\\ y $HOME *"))
        .isEqualTo(List.of("llm", "-m", "big model", "--say", "a b", "x y", "$HOME", "*"));
    assertThat(SamplingCommand.words("  ''  a")).isEqualTo(List.of("", "a"));
    assertThatThrownBy(() -> SamplingCommand.words("a 'b")).hasMessageContaining("unclosed");
  }
}
