package dev.keel.mcp.server.internal.dispatch;

import dev.keel.mcp.core.schema.ClientCapabilities;
import dev.keel.mcp.core.schema.Implementation;
import dev.keel.mcp.core.schema.LoggingLevel;
import dev.keel.mcp.server.internal.mrtr.MrtrRound;
import dev.keel.mcp.server.internal.session.RealServerSession;

/**
 * What a request is, era by era: where its version, capabilities and log level come from (the
 * session in the legacy era, the request's {@code _meta} in the stateless one), and, for a
 * stateless request that may need input, its round.
 *
 * @param wire the request's era's wire: how its answers look, how it asks, its tasks
 * @param session the legacy session, or null
 * @param protocolVersion the protocol version
 * @param capabilities what the client declared
 * @param clientInfo the client's name and version, or null
 * @param logThreshold the least severe level to send, or null to send no log messages
 * @param round the multi-round-trip round, or null when the request cannot ask for input
 */
record RequestView(WireCodec wire, RealServerSession session, String protocolVersion,
    ClientCapabilities capabilities, Implementation clientInfo, LoggingLevel logThreshold,
    MrtrRound round) {

  /** Returns this view without its round: a task's handler cannot answer input_required. */
  RequestView withoutRound() {
    return new RequestView(wire, session, protocolVersion, capabilities, clientInfo,
        logThreshold, null);
  }

  /** Returns this view sending no log messages. */
  RequestView withoutLogs() {
    return new RequestView(wire, session, protocolVersion, capabilities, clientInfo, null,
        round);
  }
}
