package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;

/**
 * What {@code initialize} produced.
 *
 * <p>The result of a successful response is shared by every session that negotiated the same
 * version: a transport encodes it and never changes it, and one that hands the tree itself to
 * another party (an in-memory client) gives it a copy.
 *
 * @param response the response to send
 * @param session the session it created or refreshed, or null when it failed
 */
public record InitializeOutcome(JsonRpcMessage response, ServerSession session) {}
