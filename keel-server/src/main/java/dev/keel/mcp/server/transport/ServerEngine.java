package dev.keel.mcp.server.transport;

import dev.keel.mcp.core.jsonrpc.JsonRpcCodec;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.cluster.Cluster;
import dev.keel.mcp.server.cluster.SessionRecord;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import tools.jackson.databind.JsonNode;

/**
 * The server as a transport sees it. A transport does gates, streams and bytes; the engine does
 * the rest: {@code initialize}, sessions and their owners, routing each request once, admission
 * under the in-flight limit, the hand-off to handler threads, timeouts and cancellation.
 *
 * <p>Per message, a transport decides the {@link Edge} (the session, after checking its owner;
 * the principal; the era, by {@link Era#of}) and then either calls {@link #initialize}, starts a
 * {@link #call}, or {@link #deliver}s a notification or a response.
 *
 * <pre>{@code
 * JsonRpcMessage message = engine.codec().decode(bytes);
 * Edge edge = Edge.of(session, principal, Era.of(Era.Facts.of(method, params)));
 * if (message instanceof JsonRpcRequest request) {
 *   ServerCall call = engine.call(edge, request);
 *   if (!call.start(stream, false)) {
 *     // busy
 *   }
 * } else {
 *   engine.deliver(edge, message);
 * }
 * }</pre>
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
   * Ends {@code session} only when ending it sets nothing else off: no request of it runs, no
   * request to its client is pending, no listening stream is attached and no task of it runs.
   * A transport that must not block (a selector) ends a session this way, and leaves any other
   * to {@link ServerSession#close}. Between this check and the end a request of the session may
   * still start on another connection; it is then cancelled as {@code close} cancels it.
   *
   * @return true when the session was ended here; false when it was left as it is
   */
  default boolean endIfQuiet(ServerSession session) {
    return false;
  }

  /**
   * Opens or reopens a notification channel under a client-chosen id (trust on first use), when
   * the server allows channels.
   *
   * @return empty when channels are off, the id is low-entropy or held by another principal,
   *     or a session limit is reached
   */
  Optional<ServerSession> attachChannel(String id, Principal principal);

  /**
   * Returns the cluster this engine's node belongs to ({@link Cluster#single()} unless the
   * server was built with one): a transport forwards requests for sessions other nodes hold.
   */
  default Cluster cluster() {
    return Cluster.single();
  }

  /**
   * Takes over a session of a node that died, after the cluster's directory moved it here:
   * the session continues under its id, its owner and what it negotiated.
   *
   * @return empty when {@code principal} is not the record's owner or a limit is reached
   */
  default Optional<ServerSession> adopt(SessionRecord record, Principal principal) {
    return Optional.empty();
  }

  /**
   * Resolves a request that is not {@code initialize} into the call the engine will run, once:
   * its method, tool and options. Nothing runs until {@link ServerCall#start}.
   */
  ServerCall call(Edge edge, JsonRpcRequest request);

  /** Takes a notification or a response (to a request the server sent) from the client. */
  void deliver(Edge edge, JsonRpcMessage message);

  /**
   * Runs one message through the engine on the calling thread, waiting for a request's answer:
   * a convenience for simple transports and tests, built on {@link #call} and
   * {@link #deliver}. {@code stream} carries what the request sends before its answer.
   *
   * @return the answer to a request; empty for notifications, responses, and requests that
   *     were cancelled
   * @throws IllegalStateException when the server is at its in-flight limit
   */
  default Optional<JsonRpcMessage> handle(Edge edge, JsonRpcMessage message,
      MessageStream stream) {
    if (!(message instanceof JsonRpcRequest request)) {
      deliver(edge, message);
      return Optional.empty();
    }
    CompletableFuture<Optional<JsonRpcMessage>> answer = new CompletableFuture<>();
    RequestStream requestStream = new RequestStream() {
      @Override
      public boolean send(JsonRpcMessage m) {
        return stream.send(m);
      }

      @Override
      public void finish(Optional<JsonRpcMessage> a) {
        answer.complete(a);
      }

      @Override
      public void closeForPolling() {
        if (stream instanceof RequestStream r) {
          r.closeForPolling();
        }
      }

      @Override
      public boolean hold(Runnable onGone) {
        return stream instanceof RequestStream r && r.hold(onGone);
      }

      @Override
      public void release() {
        if (stream instanceof RequestStream r) {
          r.release();
        }
      }
    };
    if (!call(edge, request).start(requestStream, true)) {
      throw new IllegalStateException("the server is at its in-flight limit");
    }
    try {
      return answer.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    } catch (ExecutionException e) {
      throw new IllegalStateException("the call failed", e.getCause());
    }
  }

  /** {@link #handle(Edge, JsonRpcMessage, MessageStream)} in a given era. */
  default Optional<JsonRpcMessage> handle(ServerSession session, Principal principal,
      JsonRpcMessage message, Era era, MessageStream stream) {
    return handle(Edge.of(session, principal, era), message, stream);
  }

  /**
   * {@link #handle(Edge, JsonRpcMessage, MessageStream)} for a message that came without
   * headers (stdio, in-memory): its era follows from the message alone, by the same rule.
   */
  default Optional<JsonRpcMessage> handle(ServerSession session, Principal principal,
      JsonRpcMessage message, MessageStream stream) {
    JsonNode params = message instanceof JsonRpcRequest r ? r.params()
        : message instanceof JsonRpcNotification n ? n.params() : null;
    String method = message instanceof JsonRpcRequest r ? r.method()
        : message instanceof JsonRpcNotification n ? n.method() : null;
    return handle(Edge.of(session, principal, Era.of(Era.Facts.of(method, params))), message,
        stream);
  }
}
