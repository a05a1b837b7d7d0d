package dev.keel.mcp.test;

import dev.keel.mcp.client.SessionExpiredException;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.JsonRpcResponse;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.ServerCall;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The server half of the in-memory transport pair: serves an {@link McpServer} to clients in the
 * same JVM through the public transport SPI ({@code dev.keel.mcp.server.transport}), with no
 * socket, no serialization and no thread beyond the handler threads the engine needs.
 *
 * <p>Each {@link #connect()} returns the client half, an {@link InMemoryClientTransport}, for a
 * {@code McpClient}. Both eras work through it: a legacy {@code initialize} creates a session
 * owned by the connection's principal, whose listening stream is this connection, and
 * {@code notifications/cancelled} cancels within it; a stateless (2026-07-28) request gets a
 * stream of its own, and closing that stream (the client aborting the exchange) cancels it, as
 * over HTTP. Requests run on the engine's handler threads (virtual on 21+), notifications and
 * answers to the server's own requests on the sender's thread, and whatever the server sends
 * reaches the client on the thread that sends it.
 *
 * <pre>{@code
 * try (InMemoryServerTransport transport = InMemoryServerTransport.create(server);
 *     McpClient client = McpClient.builder(transport.connect()).era(Era.LEGACY).connect()) {
 *   client.callTool("echo", McpJson.object().put("text", "hi"));
 * }
 * }</pre>
 *
 * <p>Closing it ends every connection (their sessions too); the {@link McpServer} stays open,
 * since its owner may serve it elsewhere.
 */
public final class InMemoryServerTransport implements AutoCloseable {

  private final ServerEngine engine;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private InMemoryServerTransport(ServerEngine engine) {
    this.engine = engine;
  }

  /** Returns a transport serving {@code server}; it serves until closed. */
  public static InMemoryServerTransport create(McpServer server) {
    return new InMemoryServerTransport(Objects.requireNonNull(server, "server").engine());
  }

  /** Returns a new client half whose requests run as {@link Principal#local()}. */
  public InMemoryClientTransport connect() {
    return connect(Principal.local());
  }

  /**
   * Returns a new client half whose requests run as {@code principal}: sessions, tasks and
   * subscriptions are bound to it, as an authenticator would bind them over HTTP.
   */
  public InMemoryClientTransport connect(Principal principal) {
    if (closed) {
      throw new IllegalStateException("the in-memory transport is closed");
    }
    return new InMemoryClientTransport(this, Objects.requireNonNull(principal, "principal"));
  }

  /** Ends every connection and its session. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (Connection c : connections) {
      c.close(new TransportException("the in-memory server transport closed"));
    }
  }

  /** Opens the server side of a connection for {@code client}. */
  Connection open(InMemoryClientTransport client, Principal principal) {
    if (closed) {
      throw new TransportException("the in-memory server transport is closed");
    }
    Connection c = new Connection(client, principal);
    connections.add(c);
    return c;
  }

  /**
   * The server side of one client: its legacy session (when one was initialized), its listening
   * stream, and the streams of its requests still running.
   */
  final class Connection implements MessageStream {
    private final InMemoryClientTransport client;
    private final Principal principal;
    private final Set<RequestStream> open = ConcurrentHashMap.newKeySet();
    private volatile boolean gone;

    Connection(InMemoryClientTransport client, Principal principal) {
      this.client = client;
      this.principal = principal;
    }

    /**
     * Takes one message from the client. A request gets a stream (returned) and runs on a
     * handler thread, or inline when the engine says it never blocks; anything else is handled
     * here and now.
     *
     * @param sessionId the legacy session the client writes into, or null
     * @param modern true for a stateless request, which never belongs to a session
     */
    RequestStream deliver(JsonRpcMessage message, String sessionId, boolean modern) {
      if (gone) {
        throw new TransportException("the in-memory connection is closed");
      }
      ServerSession session = null;
      if (sessionId != null && !modern) {
        // Looked up as HTTP looks up Mcp-Session-Id: an ended or foreign session is unknown.
        session = engine.session(sessionId, principal).orElse(null);
        if (session == null) {
          client.sessionEnded(sessionId);
          if (message instanceof JsonRpcRequest r && !r.method().equals("initialize")) {
            client.failed(r.id(), new SessionExpiredException());
            return null;
          }
          if (!(message instanceof JsonRpcRequest)) {
            return null;
          }
        }
      }
      if (message instanceof JsonRpcRequest r && r.method().equals("initialize")) {
        initialize(r, session);
        return null;
      }
      // Like stdio, no headers: the message alone tells its era, by the one rule.
      Era era = Era.of(Era.Facts.of(message instanceof JsonRpcRequest r ? r.method()
          : message instanceof JsonRpcNotification n ? n.method() : null,
          message instanceof JsonRpcRequest r ? r.params()
          : message instanceof JsonRpcNotification n ? n.params() : null));
      Edge edge = Edge.of(modern ? null : session, principal, era);
      if (message instanceof JsonRpcRequest r) {
        return start(r, edge);
      }
      engine.deliver(edge, message);
      return null;
    }

    private void initialize(JsonRpcRequest request, ServerSession existing) {
      InitializeOutcome outcome = engine.initialize(principal, request, existing);
      ServerSession session = outcome.session();
      if (session != null && session != existing) {
        // Like stdio, the connection itself is the session's listening stream.
        session.attachListener(this);
        String id = session.id();
        session.onClose(() -> client.sessionEnded(id));
        client.sessionOpened(id);
      }
      // the result is shared by the server's sessions (InitializeOutcome): the client gets its own
      client.receive(outcome.response() instanceof JsonRpcResponse r
          ? new JsonRpcResponse(r.id(), r.result() == null ? null : r.result().deepCopy())
          : outcome.response());
    }

    private RequestStream start(JsonRpcRequest request, Edge edge) {
      RequestStream stream = new RequestStream(this, request.id(), edge.session() == null);
      open.add(stream);
      // The engine resolves the call, admits it and runs it: inline when it is a non-blocking
      // tool (as on a container thread over HTTP), else on its own handler threads.
      ServerCall call = engine.call(edge, request);
      stream.cancelWith(call::cancel);
      if (!call.start(stream, true)) {
        stream.finish(Optional.of(busy(request)));
      }
      return stream;
    }

    /** The listening stream: what the server sends outside any request. */
    @Override
    public boolean send(JsonRpcMessage message) {
      if (gone) {
        return false;
      }
      client.receive(message);
      return true;
    }

    void ended(RequestStream stream) {
      open.remove(stream);
    }

    /** The client went away or the server transport closed: everything of it ends. */
    void close(RuntimeException why) {
      if (gone) {
        return;
      }
      gone = true;
      connections.remove(this);
      for (RequestStream s : open) {
        s.abort();
      }
      String id = client.sessionId();
      if (id != null) {
        // A client that leaves ends its session, as a DELETE or the end of a stdio process does.
        engine.session(id, principal).ifPresent(ServerSession::close);
      }
      if (why != null) {
        client.closed(why);
      }
    }
  }

  /**
   * The stream of one request: its progress, logs and questions to the client, then its
   * answer. Aborting it is the client closing the stream, which cancels a stateless request.
   */
  static final class RequestStream implements dev.keel.mcp.server.transport.RequestStream {
    private final Connection connection;
    private final RequestId id;
    private final boolean sessionless;
    private volatile Consumer<String> cancel;
    private volatile Runnable onGone;
    private volatile boolean held;
    private volatile boolean done;
    private volatile boolean aborted;

    RequestStream(Connection connection, RequestId id, boolean sessionless) {
      this.connection = connection;
      this.id = id;
      this.sessionless = sessionless;
    }

    @Override
    public boolean send(JsonRpcMessage message) {
      if (done || aborted) {
        return false;
      }
      connection.client.receive(message);
      return true;
    }

    /** Gives the stream the way to cancel its request, for when the client closes it. */
    void cancelWith(Consumer<String> canceller) {
      this.cancel = canceller;
      if (aborted && sessionless) {
        canceller.accept("the client closed the stream");
      }
    }

    @Override
    public void closeForPolling() {
      // nothing to poll in memory: the stream stays as it is
    }

    @Override
    public boolean hold(Runnable whenGone) {
      this.onGone = whenGone;
      this.held = true;
      return true;
    }

    @Override
    public void release() {
      if (!done) {
        done = true;
        connection.ended(this);
        if (!aborted) {
          // As over HTTP: a stream that ends without an answer fails its request.
          connection.client.failed(id,
              new TransportException("the response stream ended before the answer"));
        }
      }
    }

    /** The handler returned: its answer, or none (cancelled, or held open). */
    @Override
    public void finish(Optional<JsonRpcMessage> answer) {
      if (answer.isEmpty() && held) {
        return;
      }
      if (!done) {
        done = true;
        connection.ended(this);
        if (!aborted) {
          answer.ifPresent(connection.client::receive);
        }
      }
    }

    /**
     * The client closed the stream: nothing more reaches it. A sessionless request is cancelled
     * by this, as over HTTP; a legacy one is cancelled only by {@code notifications/cancelled}
     * in its session, which the client sends before it stops reading.
     */
    void abort() {
      if (aborted) {
        return;
      }
      aborted = true;
      Consumer<String> c = cancel;
      if (c != null && !done && sessionless) {
        c.accept("the client closed the stream");
      }
      Runnable g = onGone;
      if (g != null && held) {
        g.run();
      }
      connection.ended(this);
    }

    boolean isOpen() {
      return !done && !aborted;
    }
  }

  private static JsonRpcErrorResponse busy(JsonRpcRequest request) {
    return new JsonRpcErrorResponse(request.id(),
        new JsonRpcError(ErrorCodes.SERVER_ERROR, "Server busy", null));
  }
}
