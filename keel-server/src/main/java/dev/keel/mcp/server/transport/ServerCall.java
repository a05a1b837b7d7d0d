package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.node.ObjectNode;

/**
 * One request, resolved once by {@link ServerEngine#call}: its route (method handler, tool and
 * options) is known, and the engine owns what follows: admission under the in-flight limit, the
 * hand-off to a handler thread, the timeout, the cancellation token and the answer.
 *
 * <pre>{@code
 * ServerCall call = engine.call(edge, request);
 * if (!call.start(stream, false)) {
 *   // the server is at its in-flight limit: answer "busy" in the transport's own way
 * }
 * }</pre>
 */
public interface ServerCall {

  /** Returns the request. */
  JsonRpcRequest request();

  /**
   * Returns true when {@link #start} may answer on the calling thread before it returns: a tool
   * registered as non-blocking ({@code ToolOptions.withNonBlocking()}), or a request refused
   * before any handler runs. A transport that lets it may then skip whatever it needs to answer
   * later (servlet async mode).
   */
  boolean runsInline();

  /**
   * Returns the input schema of the tool a {@code tools/call} names, for transports that check
   * arguments mirrored into headers ({@code x-mcp-header}); empty for anything else.
   */
  Optional<ObjectNode> toolInputSchema();

  /**
   * Returns the scopes the caller's principal lacks for this call (the routed tool's
   * {@code requiredScopes} its token does not grant); empty when it may go ahead. A transport
   * with a way to say so (HTTP's 403 {@code insufficient_scope}) refuses the call before
   * {@link #start}; otherwise the engine answers it with an error and never runs the handler.
   */
  default Set<String> missingScopes() {
    return Set.of();
  }

  /**
   * Starts the call. Unless it returns false, the engine ends it with exactly one
   * {@link RequestStream#finish} (nothing for a cancelled request), from the calling thread
   * when it runs inline, else from a handler thread.
   *
   * @param mayRunHere whether the calling thread may run a call that {@link #runsInline()}; a
   *     transport says no when it must not hold its thread (its inline budget is spent)
   * @return false, having started nothing, when the server is at its in-flight limit
   */
  boolean start(RequestStream stream, boolean mayRunHere);

  /**
   * Cancels the call, for a transport that learns of it itself (a dropped stream that cannot be
   * resumed; the stateless era's closed stream). Before {@link #start} it makes the call end at
   * once, unanswered. Idempotent: the first reason wins.
   */
  void cancel(String reason);
}
