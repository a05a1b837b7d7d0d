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
 *
 * <p>A transport says what it can do beyond carrying messages in {@link #capabilities()}, and
 * learns about the legacy session it carries through {@link #sessionStarted} and
 * {@link #openListeningStream()}. The client relies on these alone, never on a transport's
 * class, so a transport written outside Keel gets everything the built-in ones get. A minimal
 * one implements the five abstract methods, checks pins where it picks the session
 * ({@link #checkWrite}), and keeps the defaults:
 *
 * <pre>{@code
 * final class PipeTransport implements ClientTransport {
 *   private final ReentrantLock writeLock = new ReentrantLock();
 *   private volatile Receiver receiver;
 *   private volatile long epoch;
 *
 *   public void start(Receiver target) { receiver = target; } // start reading: receiver.receive
 *   public Exchange send(JsonRpcMessage message, SendOptions options) {
 *     writeLock.lock();
 *     try {
 *       checkWrite(epoch); // refuses a write pinned to an ended session, having written nothing
 *       write(message);    // this transport's own bytes
 *     } finally {
 *       writeLock.unlock();
 *     }
 *     return Exchange.NONE;
 *   }
 *   public long sessionEpoch() { return epoch; }
 *   public String sessionId() { return null; }
 *   public void close() { } // ends the session; must work on an interrupted thread too
 * }
 * }</pre>
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
    /** An exchange with nothing to end: a notification, or a transport without streams. */
    Exchange NONE = () -> { };

    /**
     * Ends the response stream early. On a transport with
     * {@linkplain Capabilities#perRequestStreams() per-request streams} this is how a stateless
     * request is cancelled. Idempotent.
     */
    void abort();
  }

  /**
   * What a transport can do beyond carrying messages. The client reads these instead of
   * recognising transport classes.
   *
   * @param perRequestStreams each request has a response stream of its own, and
   *     {@link Exchange#abort()} ends it: in the stateless era the client cancels a request that
   *     way (the 2026-07-28 rule), and sends {@code notifications/cancelled} only on transports
   *     without such streams (stdio)
   * @param listeningStream the transport can open a stream for the server's messages that belong
   *     to no request (Streamable HTTP's GET): the client calls {@link #openListeningStream()}
   *     once a legacy session is initialized
   * @param sessionStart the transport keeps a legacy session that the handshake starts, whether
   *     or not the server names it, and moves its epoch when that session ends (a stdio process
   *     that exits after {@code initialize}): it wants {@link #sessionStarted}
   * @param protocolVersionHeader the transport names the protocol version outside the messages
   *     (HTTP's {@code MCP-Protocol-Version}): it sends {@link SendOptions#protocolVersion()} with
   *     each message, no header when that is null, and the version given to
   *     {@link #sessionStarted} with the requests it makes itself (GET, DELETE)
   */
  record Capabilities(boolean perRequestStreams, boolean listeningStream, boolean sessionStart,
      boolean protocolVersionHeader) {

    /** A transport that only carries messages: the defaults of {@link #capabilities()}. */
    public static final Capabilities NONE = new Capabilities(false, false, false, false);
  }

  /**
   * What a transport may need to know about a message beyond its JSON.
   *
   * @param modern true for a stateless (2026-07-28) request: carry the request headers
   * @param protocolVersion the version to name in {@code MCP-Protocol-Version}, or null for
   *     none: the legacy {@code initialize} carries none, so that a version left from the era
   *     probe never reaches a server that checks it
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

  /**
   * Closes the transport: ends the session (HTTP DELETE; stdio: stdin, TERM, KILL). It must do so
   * whatever the calling thread's interrupt status: a client is often closed by the thread whose
   * call was just interrupted (Ctrl-C), and the session's end must still reach the server.
   */
  @Override
  void close();

  /** Returns what this transport can do; the default is {@link Capabilities#NONE}. */
  default Capabilities capabilities() {
    return Capabilities.NONE;
  }

  /**
   * Tells the transport that the legacy handshake completed and the server chose
   * {@code protocolVersion}. Called once per session (again after a replacement handshake),
   * before {@code notifications/initialized} is sent. The default does nothing.
   */
  default void sessionStarted(String protocolVersion) {}

  /**
   * Opens the stream for the server's messages that belong to no request, when
   * {@link Capabilities#listeningStream()} says there is one; they arrive at the receiver. Called
   * after {@code notifications/initialized}. A server without such a stream is fine. The default
   * does nothing.
   */
  default void openListeningStream() {}

  /**
   * Refuses a write of this thread that its guard objects to, or that is pinned to an ended
   * session. A transport calls it in the critical section that picks the session it writes to,
   * with the epoch current there, before writing anything.
   *
   * @throws SessionChangedException when the pinned epoch is not {@code currentEpoch}
   */
  default void checkWrite(long currentEpoch) {
    SessionPins.check(this, currentEpoch);
  }

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
