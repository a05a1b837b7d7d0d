package dev.keel.cli.output;

/**
 * Makes server text safe to print on a terminal: escape sequences could rewrite the screen or
 * hide output, so every control character except newline and tab is shown escaped. Unlike a
 * log line, printed text is not capped: the user asked for it.
 */
public final class TerminalText {

  private TerminalText() {}

  /** Returns {@code text} with control characters other than newline and tab escaped. */
  public static String safe(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder out = new StringBuilder(text.length());
    text.codePoints().forEach(cp -> {
      if (cp == '\n' || cp == '\t') {
        out.appendCodePoint(cp);
      } else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0x2028
          || cp == 0x2029) {
        out.append(String.format("\\u%04x", cp));
      } else {
        out.appendCodePoint(cp);
      }
    });
    return out.toString();
  }

  /** Returns the first line of {@code text}, made safe and cut to {@code max} characters. */
  public static String firstLine(String text, int max) {
    if (text == null) {
      return "";
    }
    String line = text.strip();
    int newline = line.indexOf('\n');
    if (newline >= 0) {
      line = line.substring(0, newline).strip();
    }
    line = safe(line);
    return line.length() <= max ? line : line.substring(0, max - 1) + "…";
  }
}
