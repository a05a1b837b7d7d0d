package dev.keel.mcp.core;

/**
 * Makes peer-supplied text safe to echo in an error message or a log line.
 *
 * <p>Peer text is untrusted: control characters could forge log lines or terminal escapes, and
 * unbounded text could flood a log. Everything Keel echoes goes through {@link #safe(String)}.
 */
public final class Text {

  /** The longest peer text Keel ever echoes, in characters. */
  public static final int MAX_ECHO = 128;

  private Text() {}

  /** Returns the text with control characters escaped and capped at {@link #MAX_ECHO}. */
  public static String safe(String text) {
    if (text == null) {
      return "null";
    }
    StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_ECHO) + 8);
    for (int i = 0; i < text.length(); i++) {
      if (out.length() >= MAX_ECHO) {
        out.append("...");
        break;
      }
      char c = text.charAt(i);
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == '\u2028' || c == '\u2029') {
        out.append(String.format("\\u%04x", (int) c));
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }
}
