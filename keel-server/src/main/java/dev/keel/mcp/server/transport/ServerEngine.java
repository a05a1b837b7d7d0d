package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.Principal;
import java.util.Optional;

/**
 * The server as a transport sees it: messages in, responses out.
 *
 * <p>{@link #handle} runs on the calling thread and blocks while a handler runs, so a transport
 * calls it from a thread that may block (a virtual thread, or one of {@link HandlerThreads}).
 * Cancellation interrupts that thread, and the binding is undone before {@code handle} returns.
 */
public interface ServerEngine {

  /** Returns the codec, with the server's JSON limits. */
  JsonRpcCodec codec();

  /**
   * Handles {@code initialize}: creates a session owned by {@code principal}, or refreshes
   * {@code existing} when its owner initializes again.
   *
   * @param existing the session the request named, or null for a new one
   */
  InitializeOutcome initialize(Principal principal, JsonRpcRequest request,
      ServerSession existing);

  /**
   * Returns the live session with this id when {@code principal} owns it. An unknown id and
   * another principal's id look exactly the same: empty.
   */
  Optional<ServerSession> session(String id, Principal principal);

  /**
   * Opens or reopens a notification channel under a client-chosen id (trust on first use), when
   * the server allows channels.
   *
   * @return empty when channels are off, the id is low-entropy or held by another principal,
   *     or a session limit is reached
   */
  Optional<ServerSession> attachChannel(String id, Principal principal);

  /**
   * Returns the input schema of a tool, for transports that check arguments mirrored into
   * headers ({@code x-mcp-header}).
   */
  Optional<tools.jackson.databind.node.ObjectNode> toolInputSchema(String name);

  /**
   * Takes a slot under the in-flight limit; a transport calls it before it starts a handler
   * thread and answers "busy" (HTTP 503) when it is empty.
   */
  Optional<Admission> admit();

  /**
   * Returns true when {@code request} calls a tool registered as non-blocking
   * ({@code ToolOptions.withNonBlocking()}): a transport may then run {@link #handle} on the
   * thread that received it, a thread that must not wait, instead of starting a handler thread.
   * Cancellation never interrupts the thread of such a call. An engine that makes no such
   * promise keeps the default, false.
   */
  default boolean runsInline(JsonRpcRequest request) {
    return false;
  }

  /**
   * Handles one message that is not {@code initialize}, in the era its transport decided with
   * {@link Era#of} at its edge; the engine does not decide it again.
   *
   * @param session the legacy session it belongs to, or null when sessionless
   * @param principal who sent it
   * @param message the message
   * @param era the era the message speaks
   * @param stream where messages related to a request go
   * @return the response to a request; empty for notifications, responses, and requests that
   *     were cancelled (a cancelled request gets no response)
   */
  Optional<JsonRpcMessage> handle(ServerSession session, Principal principal,
      JsonRpcMessage message, Era era, MessageStream stream);

  /**
   * Handles a message that came without headers (stdio, in-memory): its era follows from the
   * message alone, by the same rule.
   */
  default Optional<JsonRpcMessage> handle(ServerSession session, Principal principal,
      JsonRpcMessage message, MessageStream stream) {
    return handle(session, principal, message, Era.of(Era.Facts.of(methodOf(message),
        paramsOf(message))), stream);
  }

  private static String methodOf(JsonRpcMessage message) {
    if (message instanceof dev.keel.mcp.core.jsonrpc.JsonRpcRequest r) {
      return r.method();
    }
    return message instanceof dev.keel.mcp.core.jsonrpc.JsonRpcNotification n ? n.method()
        : null;
  }

  private static tools.jackson.databind.JsonNode paramsOf(JsonRpcMessage message) {
    if (message instanceof dev.keel.mcp.core.jsonrpc.JsonRpcRequest r) {
      return r.params();
    }
    return message instanceof dev.keel.mcp.core.jsonrpc.JsonRpcNotification n ? n.params()
        : null;
  }
}
