package dev.keel.cli.output;

import dev.keel.mcp.core.McpJson;
import dev.keel.mcp.core.schema.LoggingLevel;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The server's log messages ({@code notifications/message}) as stderr lines:
 * {@code keel: [warning] logger: message}. Text data prints as text, anything else as compact
 * JSON, and all of it is made safe for the terminal and cut at 2000 characters, since a server
 * decides what it logs.
 *
 * <pre>{@code
 * String line = LogLines.format(params, LoggingLevel.INFO);
 * if (line != null) {
 *   System.err.println(line);
 * }
 * }</pre>
 */
public final class LogLines {

  private static final int MAX = 2000;

  private LogLines() {}

  /**
   * Returns the line for one notification's params, or null when its level is below
   * {@code minimum} (a server may send more than it was asked for). An unknown level is shown.
   */
  public static String format(ObjectNode params, LoggingLevel minimum) {
    String levelName = params.path("level").asString("info");
    LoggingLevel level = null;
    try {
      level = LoggingLevel.fromWire(levelName);
    } catch (IllegalArgumentException e) {
      // shown under its own name: hiding what cannot be ranked would lose it
    }
    if (level != null && !level.atLeast(minimum)) {
      return null;
    }
    JsonNode data = params.get("data");
    String text = data == null || data.isNull() ? ""
        : data.isString() ? data.asString() : McpJson.standard().write(data);
    JsonNode logger = params.get("logger");
    StringBuilder line = new StringBuilder("keel: [")
        .append(TerminalText.firstLine(levelName, 20)).append("] ");
    if (logger != null && logger.isString() && !logger.asString().isBlank()) {
      line.append(TerminalText.firstLine(logger.asString(), 80)).append(": ");
    }
    String safe = TerminalText.safe(text.strip());
    line.append(safe.length() <= MAX ? safe : safe.substring(0, MAX - 1) + "…");
    return line.toString();
  }
}
