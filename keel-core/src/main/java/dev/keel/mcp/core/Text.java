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
    int i = 0;
    while (i < text.length()) {
      if (out.length() >= MAX_ECHO) {
        out.append("...");
        break;
      }
      int cp = text.codePointAt(i);
      int width = Character.charCount(cp);
      if (isUnsafe(cp)) {
        out.append(String.format("\\u%04x", cp));
      } else if (width == 2 && out.length() + 2 > MAX_ECHO) {
        // never cut a surrogate pair in half: an unpaired surrogate is invalid JSON text
        out.append("...");
        break;
      } else {
        out.appendCodePoint(cp);
      }
      i += width;
    }
    return out.toString();
  }

  private static boolean isUnsafe(int cp) {
    return cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xa0) || cp == 0x2028
        || cp == 0x2029 || Character.getType(cp) == Character.SURROGATE;
  }
}
