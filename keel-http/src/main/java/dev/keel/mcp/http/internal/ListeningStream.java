package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.server.transport.ListenerAttachment;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerSession;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A session's GET stream: notifications and requests unrelated to any request in flight. It holds
 * no thread while idle; writes come from whoever sends. Closing is idempotent and its cleanup
 * (detach from the session, stop keep-alives, complete the connection) runs exactly once, and a
 * stale stream's close never detaches a newer one.
 */
final class ListeningStream implements MessageStream, AsyncListener, KeepAlive.Tickable {

  private final ReentrantLock lock = new ReentrantLock();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final TransportContext context;
  private final SessionStreams streams;
  private final ServerSession session;
  private final String streamId;
  private final boolean resumable;
  private final AsyncContext async;
  private final SseWriter writer;
  private volatile ListenerAttachment attachment;

  ListeningStream(TransportContext context, SessionStreams streams, ServerSession session,
      String streamId, boolean resumable, AsyncContext async, SseWriter writer) {
    this.context = context;
    this.streams = streams;
    this.session = session;
    context.openListening().incrementAndGet();
    this.streamId = streamId;
    this.resumable = resumable && context.events() != null;
    this.async = async;
    this.writer = writer;
  }

  String streamId() {
    return streamId;
  }

  /** Starts delivering: registers for keep-alives and disconnect events. */
  void start(ListenerAttachment attached) {
    this.attachment = attached;
    async.addListener(this);
    context.keepAlive().add(this);
    if (closed.get()) {
      attached.detach();
    }
  }

  /** Writes the priming event of a fresh stream. */
  boolean prime() {
    if (!resumable) {
      return true;
    }
    lock.lock();
    try {
      writer.prime(context.events().append(streams.sessionId(), streamId, new byte[0]),
          context.retryMillis());
      return true;
    } catch (IOException e) {
      close();
      return false;
    } finally {
      lock.unlock();
    }
  }

  /** Replays a stored event (resumption). */
  boolean replay(String id, byte[] data) {
    lock.lock();
    try {
      writer.message(id, data);
      return true;
    } catch (IOException e) {
      close();
      return false;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean send(JsonRpcMessage message) {
    if (closed.get()) {
      return false;
    }
    byte[] bytes = context.codec().encode(message);
    lock.lock();
    try {
      if (closed.get()) {
        return false;
      }
      String id = resumable ? context.events().append(streams.sessionId(), streamId, bytes) : null;
      writer.message(id, bytes);
      return true;
    } catch (IOException e) {
      close();
      return false;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void tick() {
    if (closed.get()) {
      return;
    }
    lock.lock();
    try {
      writer.keepAlive();
    } catch (IOException e) {
      close();
      return;
    } finally {
      lock.unlock();
    }
    // The peer took the keep-alive: it is alive, and so is its session.
    session.touch();
  }

  /** Closes the stream from the server side, first telling the client when to reconnect. */
  void closeWithRetry() {
    if (closed.get()) {
      return;
    }
    lock.lock();
    try {
      writer.retry(context.retryMillis());
    } catch (IOException e) {
      // the client is gone already
    } finally {
      lock.unlock();
    }
    close();
  }

  /** Closes the stream; only the first call does anything. */
  void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    ListenerAttachment a = attachment;
    if (a != null) {
      a.detach();
    }
    context.keepAlive().remove(this);
    context.openListening().decrementAndGet();
    streams.listeningClosed(this);
    try {
      async.complete();
    } catch (IllegalStateException e) {
      // the container completed it already
    }
  }

  boolean isClosed() {
    return closed.get();
  }

  @Override
  public void onComplete(AsyncEvent event) {
    close();
  }

  @Override
  public void onTimeout(AsyncEvent event) {
    close();
  }

  @Override
  public void onError(AsyncEvent event) {
    close();
  }

  @Override
  public void onStartAsync(AsyncEvent event) {
    // not used
  }
}
