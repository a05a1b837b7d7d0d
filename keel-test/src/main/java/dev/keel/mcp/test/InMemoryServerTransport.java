package dev.keel.mcp.test;

import dev.keel.mcp.client.SessionExpiredException;
import dev.keel.mcp.client.TransportException;
import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.jsonrpc.RequestId;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.Admission;
import dev.keel.mcp.server.transport.HandlerThreads;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
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
 * over HTTP. Requests run on handler threads (virtual on 21+), notifications and answers to the
 * server's own requests on the sender's thread, and whatever the server sends reaches the client
 * on the thread that sends it.
 *
 * <pre>{@code
 * try (InMemoryServerTransport transport = InMemoryServerTransport.create(server);
 *     McpClient client = McpClient.builder(transport.connect()).era(Era.LEGACY).connect()) {
 *   client.callTool("echo", McpJson.object().put("text", "hi"));
 * }
 * }</pre>
 *
 * <p>Closing it ends every connection (their sessions too) and its handler threads; the
 * {@link McpServer} stays open, since its owner may serve it elsewhere.
 */
public final class InMemoryServerTransport implements AutoCloseable {

  private final ServerEngine engine;
  private final ExecutorService handlers = HandlerThreads.newExecutor("keel-test-handler");
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

  /** Ends every connection and its session, then stops the handler threads. Idempotent. */
  @Override
  public void close() {
    closed = true;
    for (Connection c : connections) {
      c.close(new TransportException("the in-memory server transport closed"));
    }
    handlers.shutdown();
    try {
      if (!handlers.awaitTermination(2, TimeUnit.SECONDS)) {
        handlers.shutdownNow();
      }
    } catch (InterruptedException e) {
      handlers.shutdownNow();
      Thread.currentThread().interrupt();
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
      if (message instanceof JsonRpcRequest r) {
        return start(r, session);
      }
      engine.handle(session, principal, message, this);
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
        client.sessionStarted(id);
      }
      client.receive(outcome.response());
    }

    private RequestStream start(JsonRpcRequest request, ServerSession session) {
      RequestStream stream = new RequestStream(this, request.id(), session == null);
      open.add(stream);
      if (engine.runsInline(request)) {
        // A non-blocking tool runs on the sender's thread, as on a container thread over HTTP.
        stream.finish(engine.handle(session, principal, request, stream));
        return stream;
      }
      Optional<Admission> admission = engine.admit();
      if (admission.isEmpty()) {
        stream.finish(Optional.of(busy(request)));
        return stream;
      }
      try {
        handlers.execute(() -> {
          try (Admission held = admission.get()) {
            stream.finish(engine.handle(session, principal, request, stream));
          } catch (RuntimeException e) {
            stream.finish(Optional.of(new JsonRpcErrorResponse(request.id(),
                new JsonRpcError(ErrorCodes.INTERNAL_ERROR, "Internal error", null))));
          }
        });
      } catch (RejectedExecutionException e) {
        admission.get().close();
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
  static final class RequestStream implements MessageStream {
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

    @Override
    public void requestStarted(Consumer<String> canceller) {
      this.cancel = canceller;
      if (aborted && sessionless) {
        canceller.accept("the client closed the stream");
      }
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
    void finish(Optional<JsonRpcMessage> answer) {
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
