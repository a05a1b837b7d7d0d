package dev.keel.bench.servers;

/**
 * The two tools every compared server serves, with the same names, schemas and answers as
 * {@code ./keel fixtures}: {@code echo} ({@code {"text": string}} → one text content with that
 * text) and {@code sleep} ({@code {"ms": integer}} → blocks that long, then a text).
 */
final class BenchTools {

  static final String ECHO = "echo";
  static final String SLEEP = "sleep";
  static final String ECHO_SCHEMA = "{\"type\":\"object\",\"properties\":{\"text\":"
      + "{\"type\":\"string\"}},\"required\":[\"text\"]}";
  static final String SLEEP_SCHEMA = "{\"type\":\"object\",\"properties\":{\"ms\":"
      + "{\"type\":\"integer\",\"minimum\":0}},\"required\":[\"ms\"]}";

  private BenchTools() {}

  /** Blocks for {@code ms}; an interrupt ends the wait early and stays set for the caller. */
  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
