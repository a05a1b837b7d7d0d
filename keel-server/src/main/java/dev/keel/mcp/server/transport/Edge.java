package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.Principal;
import java.util.Objects;

/**
 * What a transport decided about a message at its edge, before the engine sees it: the session
 * it belongs to (looked up and owner-checked), who sent it, its era ({@link Era#of}, asked once)
 * and, for a connection that carries stateless requests side by side (stdio), the scope in which
 * a {@code notifications/cancelled} names them.
 *
 * @param session the legacy session, or null when sessionless
 * @param principal who sent it
 * @param era the era it speaks
 * @param cancellationScope the connection's scope for stateless cancellations, or null where
 *     closing the request's stream is the cancellation (HTTP); legacy requests are always
 *     scoped by their session
 */
public record Edge(ServerSession session, Principal principal, Era era,
    String cancellationScope) {

  /** Checks the required parts. */
  public Edge {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(era, "era");
  }

  /** An edge without a connection scope. */
  public static Edge of(ServerSession session, Principal principal, Era era) {
    return new Edge(session, principal, era, null);
  }
}
