package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;

/**
 * What {@code initialize} produced.
 *
 * @param response the response to send
 * @param session the session it created or refreshed, or null when it failed
 */
public record InitializeOutcome(JsonRpcMessage response, ServerSession session) {}
