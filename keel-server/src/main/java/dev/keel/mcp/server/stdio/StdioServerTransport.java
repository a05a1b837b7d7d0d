package dev.keel.mcp.server.stdio;

import dev.keel.mcp.core.ErrorCodes;
import dev.keel.mcp.core.jsonrpc.InvalidMessageException;
import dev.keel.mcp.core.jsonrpc.JsonRpcError;
import dev.keel.mcp.core.jsonrpc.JsonRpcErrorResponse;
import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.core.jsonrpc.JsonRpcNotification;
import dev.keel.mcp.core.jsonrpc.JsonRpcRequest;
import dev.keel.mcp.core.protocol.Era;
import dev.keel.mcp.server.McpServer;
import dev.keel.mcp.server.Principal;
import dev.keel.mcp.server.transport.Edge;
import dev.keel.mcp.server.transport.InitializeOutcome;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.RequestStream;
import dev.keel.mcp.server.transport.ServerEngine;
import dev.keel.mcp.server.transport.ServerSession;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves an {@link McpServer} over newline-delimited JSON on a pair of streams, normally the
 * process's stdin and stdout.
 *
 * <p>Nothing but MCP messages is ever written to the output; logs belong on stderr. Requests run
 * on handler threads so that the reader stays free for cancellations and for the client's answers
 * to elicitation; notifications and responses are handled on the reader thread. At end of input
 * the session ends: in-flight requests are cancelled and {@link #serve} returns.
 *
 * <pre>{@code
 * StdioServerTransport.create(server).serve(System.in, System.out);
 * }</pre>
 */
public final class StdioServerTransport {

  private static final Logger LOG = LoggerFactory.getLogger(StdioServerTransport.class);

  private final ServerEngine engine;
  private final int maxLineBytes;

  private StdioServerTransport(ServerEngine engine, int maxLineBytes) {
    this.engine = engine;
    this.maxLineBytes = maxLineBytes;
  }

  /** Returns a transport for {@code server}, with the server's message size limit. */
  public static StdioServerTransport create(McpServer server) {
    return new StdioServerTransport(server.engine(),
        server.engine().codec().json().limits().maxBytes());
  }

  /**
   * Serves until {@code in} ends or fails, then ends the session and returns. Blocks the caller.
   */
  public void serve(InputStream in, OutputStream out) {
    Output output = new Output(out);
    AtomicReference<ServerSession> session = new AtomicReference<>();
    LineReader reader = new LineReader(in, maxLineBytes);
    try {
      LineReader.Line line;
      while ((line = reader.next()) != null && !output.broken()) {
        if (line.oversized()) {
          output.send(new JsonRpcErrorResponse(null,
              new JsonRpcError(ErrorCodes.PARSE_ERROR, "Parse error: message too large", null)));
        } else if (!isBlank(line.bytes())) {
          dispatch(line.bytes(), output, session);
        }
      }
    } catch (IOException e) {
      LOG.debug("stdin failed, ending the session", e);
    } finally {
      output.gone();
      ServerSession current = session.get();
      if (current != null) {
        current.close();
      }
      output.flushQuietly();
    }
  }

  private void dispatch(byte[] bytes, Output output, AtomicReference<ServerSession> session) {
    JsonRpcMessage message;
    try {
      message = engine.codec().decode(bytes);
    } catch (InvalidMessageException e) {
      output.send(new JsonRpcErrorResponse(e.requestId(), e.toError()));
      return;
    }
    if (message instanceof JsonRpcRequest request && request.method().equals("initialize")) {
      InitializeOutcome outcome = engine.initialize(Principal.local(), request, session.get());
      if (outcome.session() != null && session.get() == null) {
        session.set(outcome.session());
        outcome.session().attachListener(output);
      }
      output.send(outcome.response());
      return;
    }
    ServerSession current = session.get();
    // stdio has no headers: the message alone tells its era, by the one rule
    Era era = Era.of(Era.Facts.of(message instanceof JsonRpcRequest r ? r.method()
        : message instanceof JsonRpcNotification n ? n.method() : null,
        message instanceof JsonRpcRequest r ? r.params()
        : message instanceof JsonRpcNotification n ? n.params() : null));
    Edge edge = new Edge(era == Era.LEGACY ? current : null, Principal.local(), era,
        output.scope());
    if (message instanceof JsonRpcRequest request) {
      if (!engine.call(edge, request).start(new LineStream(output), false)) {
        output.send(busy(request));
      }
    } else {
      engine.deliver(edge, message);
    }
  }

  /** One request's stream over stdout: its messages, then its answer, on the shared lines. */
  private static final class LineStream implements RequestStream {
    private final Output output;

    LineStream(Output output) {
      this.output = output;
    }

    @Override
    public boolean send(JsonRpcMessage message) {
      return output.send(message);
    }

    @Override
    public void finish(Optional<JsonRpcMessage> answer) {
      answer.ifPresent(output::send);
    }

    @Override
    public void closeForPolling() {
      // stdio has one stream for everything: there is nothing to poll
    }

    @Override
    public boolean hold(Runnable onGone) {
      return output.hold(onGone);
    }

    @Override
    public void release() {
      // the subscription's notifications simply stop; the shared stream stays open
    }
  }

  private static JsonRpcErrorResponse busy(JsonRpcRequest request) {
    return new JsonRpcErrorResponse(request.id(),
        new JsonRpcError(ErrorCodes.SERVER_ERROR, "Server busy", null));
  }

  private static boolean isBlank(byte[] bytes) {
    for (byte b : bytes) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  /** stdout: one message per line, written whole under a lock. */
  private final class Output implements MessageStream {
    private final OutputStream out;
    private final ReentrantLock lock = new ReentrantLock();
    private final String scope = "stdio:" + java.util.UUID.randomUUID();
    private final java.util.List<Runnable> onGone =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean broken;

    Output(OutputStream out) {
      this.out = out;
    }

    @Override
    public boolean send(JsonRpcMessage message) {
      byte[] bytes = engine.codec().encode(message);
      lock.lock();
      try {
        if (broken) {
          return false;
        }
        out.write(bytes);
        out.write('\n');
        out.flush();
        return true;
      } catch (IOException e) {
        broken = true;
        LOG.debug("stdout failed", e);
        return false;
      } finally {
        lock.unlock();
      }
    }

    boolean broken() {
      return broken;
    }

    String scope() {
      return scope;
    }

    boolean hold(Runnable whenGone) {
      onGone.add(whenGone);
      return true;
    }

    /** The peer went away: every held stream (subscription) ends. */
    void gone() {
      onGone.forEach(Runnable::run);
      onGone.clear();
    }

    void flushQuietly() {
      lock.lock();
      try {
        out.flush();
      } catch (IOException | UncheckedIOException ignored) {
        // the peer is gone; nothing left to tell it
      } finally {
        lock.unlock();
      }
    }
  }
}
