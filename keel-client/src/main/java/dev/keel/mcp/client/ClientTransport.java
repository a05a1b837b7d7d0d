package dev.keel.mcp.client;

import dev.keel.mcp.client.internal.SessionPins;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.RequestId;
import java.util.function.Supplier;
import tools.jackson.databind.node.ObjectNode;

/**
 * Carries JSON-RPC messages between a client and one server: Streamable HTTP
 * ({@link StreamableHttpTransport}) or a subprocess's stdio ({@link StdioTransport}).
 *
 * <p>A transport counts its sessions: {@link #sessionEpoch()} only grows, and moves whenever the
 * session ends or is replaced (close, DELETE, an expired session, a new session id, a restarted
 * process), never on a sessionless close. A write pinned to an epoch with
 * {@link #pinnedToSession} is refused with {@link SessionChangedException}, having written
 * nothing, once the epoch moved. The check runs at the wire, in the same critical section that
 * picks the session, after any reconnect inside the request.
 */
public interface ClientTransport extends AutoCloseable {

  /** Where the transport delivers what the server sends. Called from transport threads. */
  interface Receiver {
    /** Receives one message; must not block for long. */
    void receive(JsonRpcMessage message);

    /**
     * Reports that the exchange of request {@code id} ended without an answer: the stream broke
     * and could not be resumed, the server answered with an HTTP error, the session expired.
     */
    void failed(RequestId id, RuntimeException failure);

    /** Reports that the transport ended (the process exited, the connection is gone). */
    default void closed(RuntimeException why) {}
  }

  /** A message on its way: for a request, its response stream. */
  interface Exchange {
    /**
     * Ends the response stream early. In the stateless era over HTTP this is how a request is
     * cancelled. Idempotent.
     */
    void abort();
  }

  /**
   * What a transport may need to know about a message beyond its JSON.
   *
   * @param modern true for a stateless (2026-07-28) request: carry the request headers
   * @param protocolVersion the version to name in {@code MCP-Protocol-Version}, or null
   * @param toolInputSchema for {@code tools/call}, the tool's input schema (its
   *     {@code x-mcp-header} arguments become {@code Mcp-Param-*} headers), or null
   */
  record SendOptions(boolean modern, String protocolVersion, ObjectNode toolInputSchema) {

    /** Options for a legacy-era message. */
    public static SendOptions legacy(String protocolVersion) {
      return new SendOptions(false, protocolVersion, null);
    }
  }

  /** Starts the transport; messages arrive at {@code receiver} until it is closed. */
  void start(Receiver receiver);

  /**
   * Sends one message. Responses and related messages arrive at the receiver. Returns once the
   * message is on its way; it does not wait for the answer.
   *
   * @throws SessionChangedException when the write is pinned to an ended session (nothing sent)
   * @throws TransportException when the message could not be sent
   */
  Exchange send(JsonRpcMessage message, SendOptions options);

  /** Returns the current session epoch. */
  long sessionEpoch();

  /** Returns the legacy session id, or null. */
  String sessionId();

  /** Closes the transport: ends the session (HTTP DELETE; stdio: stdin, TERM, KILL). */
  @Override
  void close();

  /**
   * Runs {@code work} with every write of this thread through this transport pinned to
   * {@code epoch}. Pins nest and are restored on exit, also when {@code work} throws.
   */
  default <T> T pinnedToSession(long epoch, Supplier<T> work) {
    return SessionPins.pinned(this, epoch, work);
  }

  /**
   * Runs {@code work} with {@code guard} called just before every write of this thread through
   * this transport, where the pin is checked; a guard that throws refuses the write. A nested
   * guard replaces the outer one for its duration.
   */
  default <T> T guardedWrites(Runnable guard, Supplier<T> work) {
    return SessionPins.guarded(this, guard, work);
  }

  /**
   * Runs {@code work} with this transport's pin and guard lifted for this thread: the handshake
   * that establishes a replacement session is not part of the session it replaces.
   */
  default <T> T unpinnedSession(Supplier<T> work) {
    return SessionPins.unpinned(this, work);
  }
}
