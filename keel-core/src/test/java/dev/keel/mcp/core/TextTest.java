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

  /**
   * Truncation counts UTF-16 chars, so a supplementary character straddling the cap leaves a
   * lone high surrogate in the echoed text (Jackson writes it as an unpaired surrogate escape,
   * which strict JSON parsers reject).
   */
  @Test
  void truncationNeverSplitsASurrogatePair() {
    String safe = Text.safe("m".repeat(Text.MAX_ECHO - 1) + "\uD83D\uDE00tail");

    assertThat(safe).startsWith("m".repeat(Text.MAX_ECHO - 1)).endsWith("...");
    assertThat(loneSurrogateIndex(safe)).as("index of a lone surrogate in %s", safe)
        .isEqualTo(-1);
  }

  @Test
  void surrogatePairsBelowTheCapAreKept() {
    assertThat(Text.safe("ok \uD83D\uDE00")).isEqualTo("ok \uD83D\uDE00");
  }

  private static int loneSurrogateIndex(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1))) {
          return i;
        }
        i++;
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
