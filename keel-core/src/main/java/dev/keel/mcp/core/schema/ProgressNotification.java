package dev.keel.mcp.core.schema;

import java.util.Objects;
import tools.jackson.databind.JsonNode;

/**
 * The params of {@code notifications/progress}.
 *
 * @param progressToken the token of the request it reports on, echoed as received
 * @param progress the progress so far; it only ever increases
 * @param total the total, or null when unknown
 * @param message a description, or null
 */
public record ProgressNotification(JsonNode progressToken, double progress, Double total,
    String message) {

  /** Checks the token. */
  public ProgressNotification {
    Objects.requireNonNull(progressToken, "progressToken");
  }
}
