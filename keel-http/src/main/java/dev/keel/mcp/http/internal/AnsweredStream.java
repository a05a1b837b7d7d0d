package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.server.transport.MessageStream;
import java.util.Optional;

/**
 * A POST request's stream that also carries its answer: the HTTP exchange of one call, handed
 * off ({@link PostExchange}) or served on the container thread ({@link InlineExchange}).
 */
interface AnsweredStream extends MessageStream {

  /** Sends the answer (or, for a cancelled call, nothing) and ends the exchange. */
  void finish(Optional<JsonRpcMessage> answer);
}
