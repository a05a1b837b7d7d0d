package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.SessionPins;
import dev.keel.mcp.core.ConnectionClosedException;
import dev.keel.mcp.core.protocol.McpMethod;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Requests in a legacy session: written into the session current when they are built, pinned to
 * its epoch. A 404 ends the session; the thread that meets it starts a new one (one at a time)
 * and re-sends the request only when its method is idempotent, once.
 */
final class LegacyCalls {

  private static final Logger LOG = LoggerFactory.getLogger(LegacyCalls.class);

  /**
   * Returns true when re-sending {@code method} cannot do anything twice (the protocol's method
   * table says): only these survive a session expiry.
   */
  static boolean idempotent(String method) {
    return McpMethod.of(method).map(McpMethod::idempotent).orElse(false)
        && !method.equals("server/discover");
  }

  /** How often one request may find the session replaced under it before it gives up. */
  private static final int MAX_OVERTAKEN = 3;

  private final ClientTransport transport;
  private final ClientState state;
  private final Exchanges exchanges;
  private final Handshake handshake;

  LegacyCalls(ClientTransport transport, ClientState state, Exchanges exchanges,
      Handshake handshake) {
    this.transport = transport;
    this.state = state;
    this.exchanges = exchanges;
    this.handshake = handshake;
  }

  /** Sends a request into the current session, replacing an ended one first. */
  JsonNode call(String method, ObjectNode params, Duration timeout, ProgressListener listener) {
    boolean resent = false;
    int overtaken = 0;
    while (true) {
      if (state.sessionful && transport.sessionId() == null) {
        handshake.recover();
      }
      long built = transport.sessionEpoch();
      try {
        return exchanges.legacy(method, params, timeout, listener, built, true);
      } catch (SessionChangedException e) {
        // Another thread's 404 or recovery moved the session between reading the epoch and the
        // write, and nothing was written. A request the caller did not pin belongs to whichever
        // session is current, so it goes out again, whatever its method; a caller's pin stands.
        if (SessionPins.pinOf(transport) != null || ++overtaken > MAX_OVERTAKEN) {
          throw e;
        }
        LOG.debug("{} was overtaken by a session change before its write; sending it again",
            method);
      } catch (SessionExpiredException e) {
        handshake.recover();
        if (resent || !idempotent(method)) {
          throw e;
        }
        resent = true;
        LOG.debug("re-sending {} into the new session", method);
      }
    }
  }

  /**
   * A request that belongs to the session of {@code epoch} (a task's): pinned to it, and never
   * re-sent into another; an expired session is replaced for later calls.
   */
  JsonNode inSession(String method, ObjectNode params, Duration timeout, long epoch) {
    if (state.closed) {
      throw new ConnectionClosedException("the client is closed");
    }
    try {
      return exchanges.legacy(method, params, timeout, null, epoch, true);
    } catch (SessionExpiredException e) {
      handshake.recover();
      throw e;
    }
  }

  /** Makes sure a legacy session exists and returns its epoch. */
  long currentSession() {
    if (state.era == Era.LEGACY && state.sessionful && transport.sessionId() == null) {
      handshake.recover();
    }
    return transport.sessionEpoch();
  }
}
