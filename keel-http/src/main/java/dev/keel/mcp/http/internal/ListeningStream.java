package dev.keel.mcp.http.internal;

import dev.keel.mcp.core.jsonrpc.JsonRpcMessage;
import dev.keel.mcp.http.spi.EventStore;
import dev.keel.mcp.server.transport.ListenerAttachment;
import dev.keel.mcp.server.transport.MessageStream;
import dev.keel.mcp.server.transport.ServerSession;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.io.IOException;
import java.util.List;
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

  /**
   * Attaches the stream to its session and only then announces it to the client (headers, then
   * the priming event or the replayed events), all under the stream's lock: a notification sent
   * once the client sees the stream is never dropped, and nothing is written or stored for a
   * session that ended meanwhile (its close waits for the lock, then finds the stream closed).
   *
   * @param missed events to replay (resumption), or null for a fresh stream
   */
  void open(List<EventStore.StoredEvent> missed) {
    lock.lock();
    try {
      streams.listening(this);
      attachment = session.attachListener(this);
      async.addListener(this);
      context.keepAlive().add(this);
      if (session.isClosed() || closed.get()) {
        close();
        return;
      }
      if (missed == null && resumable) {
        writer.prime(streams.append(context.events(), streamId, new byte[0]),
            context.retryMillis());
      } else {
        writer.flush();
      }
      if (missed != null) {
        for (EventStore.StoredEvent event : missed) {
          if (event.data().length > 0) {
            writer.message(event.id(), event.data());
          }
        }
      }
    } catch (IOException e) {
      close();
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
      String id = resumable ? streams.append(context.events(), streamId, bytes) : null;
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
    // A held lock is a write under way: no keep-alive is due, and waiting would park a thread
    // for as long as a client that does not read stalls that write.
    if (!lock.tryLock()) {
      return;
    }
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

  /**
   * Closes the stream; only the first call does anything. The flag is set under the stream's
   * lock, so once it returns nothing more is written or stored for this stream.
   */
  void close() {
    lock.lock();
    try {
      if (!closed.compareAndSet(false, true)) {
        return;
      }
    } finally {
      lock.unlock();
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
