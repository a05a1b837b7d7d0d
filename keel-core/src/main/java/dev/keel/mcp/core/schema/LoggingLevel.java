package dev.keel.mcp.core.schema;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The RFC 5424 severities MCP logging uses, least severe first. */
public enum LoggingLevel {
  /** Debug detail. */
  DEBUG,
  /** Informational. */
  INFO,
  /** Normal but significant. */
  NOTICE,
  /** Warning. */
  WARNING,
  /** Error. */
  ERROR,
  /** Critical. */
  CRITICAL,
  /** Action needed now. */
  ALERT,
  /** The system is unusable. */
  EMERGENCY;

  /** Returns the wire name, such as {@code "warning"}. */
  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the level with this wire name.
   *
   * @throws IllegalArgumentException for an unknown name
   */
  @JsonCreator
  public static LoggingLevel fromWire(String name) {
    for (LoggingLevel level : values()) {
      if (level.wireName().equals(name)) {
        return level;
      }
    }
    throw new IllegalArgumentException("unknown logging level");
  }

  /** Returns true when a message at this level passes a threshold of {@code minimum}. */
  public boolean atLeast(LoggingLevel minimum) {
    return compareTo(minimum) >= 0;
  }
}
