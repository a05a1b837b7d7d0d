package dev.keel.mcp.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TextTest {

  @Test
  void plainTextPassesThroughUnchanged() {
    assertThat(Text.safe("tools/call é ü 日本")).isEqualTo("tools/call é ü 日本");
  }

  @Test
  void nullBecomesTheWordNull() {
    assertThat(Text.safe(null)).isEqualTo("null");
  }

  @Test
  void controlCharactersAreEscapedSoTheyCannotForgeLogLines() {
    assertThat(Text.safe("a\nb\rc\u001b[31m\u007f\u0085\u2028\u2029"))
        .isEqualTo("a\\u000ab\\u000dc\\u001b[31m\\u007f\\u0085\\u2028\\u2029");
  }

  @Test
  void longTextIsCappedAtMaxEchoWithAnEllipsis() {
    String safe = Text.safe("x".repeat(1000));

    assertThat(safe).isEqualTo("x".repeat(Text.MAX_ECHO) + "...");
  }

  @Test
  void textOfExactlyMaxEchoIsNotTruncated() {
    String exact = "y".repeat(Text.MAX_ECHO);

    assertThat(Text.safe(exact)).isEqualTo(exact);
  }
}
