package dev.keel.mcp.core.schema;

import tools.jackson.databind.JsonNode;

/**
 * The params of {@code notifications/cancelled}.
 *
 * @param requestId the id of the request to cancel, as sent
 * @param reason why, or null
 */
public record CancelledNotification(JsonNode requestId, String reason) {}
