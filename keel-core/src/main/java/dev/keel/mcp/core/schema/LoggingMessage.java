package dev.keel.mcp.core.schema;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * The params of {@code notifications/message}.
 *
 * @param level the severity
 * @param logger the logger name, or null
 * @param data the message: any JSON value
 */
public record LoggingMessage(LoggingLevel level, String logger, JsonNode data) {

  /** Checks the required members. */
  public LoggingMessage {
    Objects.requireNonNull(level, "level");
    Objects.requireNonNull(data, "data");
  }
}
