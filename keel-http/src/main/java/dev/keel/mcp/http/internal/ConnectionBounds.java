package dev.keel.mcp.http.internal;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import org.eclipse.jetty.io.AbstractEndPoint;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.component.AbstractLifeCycle;

/**
 * The two connection bounds the embedded Jetty does not have itself: how long a request head
 * may take to arrive, and how long a response write may wait on a client that does not read.
 *
 * <p>Why not Jetty's own: the idle timeout restarts with every byte, so a head sent one byte at
 * a time (slow-loris) never trips it, and it cannot be shortened to the write bound either,
 * because a request whose handler runs long without writing is idle too (Jetty ends such a
 * request at the idle timeout). {@code HttpConfiguration.setMinRequestDataRate} is read only by
 * the servlet's body reader, never for a head; {@code setMinResponseDataRate} is read by nothing
 * in Jetty 12.1; and {@code MinimumDataRateHandler} is a handler, so it first runs once the head
 * is complete, and it measures a rate over the whole response, which a quiet SSE stream falls
 * below without ever stalling.
 *
 * <p>So a timer looks at every open connection a few times per bound. A head is late when a new
 * connection has not delivered its first head within the header timeout, or when a kept-alive
 * connection began sending bytes after its last response and has not completed their head
 * within it; a kept-alive connection that sends nothing is left to the idle timeout. A write is
 * stalled when Jetty holds a write the socket did not take and the endpoint's own idle clock
 * (which restarts when bytes move in either direction) has run for the write timeout. Either
 * closes the connection: a blocked writer fails, its stream cleans up as for any disconnect.
 */
public final class ConnectionBounds extends AbstractLifeCycle implements Connection.Listener {

  private final long headerNanos;
  private final long writeMillis;
  private final long tickMillis;
  private final Map<Connection, Tracked> open = new ConcurrentHashMap<>();
  private final LongAdder accepted = new LongAdder();
  private ScheduledExecutorService timer;

  /** Creates the bounds; {@code header} and {@code write} must be positive. */
  public ConnectionBounds(Duration header, Duration write) {
    this.headerNanos = header.toNanos();
    this.writeMillis = write.toMillis();
    // A connection is closed at most a quarter of the shorter bound late, and never more than a
    // second late; one pass over 10,000 connections costs far less than a millisecond.
    Duration shorter = header.compareTo(write) <= 0 ? header : write;
    this.tickMillis = Math.max(10, Math.min(1000, shorter.toMillis() / 4));
  }

  /** Returns a handler that tells the bounds when a head has arrived and its request ended. */
  public Handler wrap(Handler next) {
    return new Handler.Wrapper(next) {
      @Override
      public boolean handle(Request request, Response response, Callback callback)
          throws Exception {
        Tracked t = open.get(request.getConnectionMetaData().getConnection());
        if (t != null) {
          t.headArrived();
          Request.addCompletionListener(request, failure -> t.requestEnded());
        }
        return super.handle(request, response, callback);
      }
    };
  }

  /** Returns how many connections are open now. */
  public int openConnections() {
    return open.size();
  }

  /** Returns how many connections were opened since the server started. */
  public long acceptedConnections() {
    return accepted.sum();
  }

  @Override
  public void onOpened(Connection connection) {
    accepted.increment();
    open.put(connection, new Tracked(connection, System.nanoTime()));
  }

  @Override
  public void onClosed(Connection connection) {
    open.remove(connection);
  }

  @Override
  protected void doStart() {
    timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "keel-connection-bounds");
      t.setDaemon(true);
      return t;
    });
    timer.scheduleWithFixedDelay(this::sweep, tickMillis, tickMillis, TimeUnit.MILLISECONDS);
  }

  @Override
  protected void doStop() {
    timer.shutdownNow();
    open.clear();
  }

  private void sweep() {
    long now = System.nanoTime();
    for (Tracked t : open.values()) {
      try {
        EndPoint endPoint = t.connection.getEndPoint();
        if (t.headLate(now, headerNanos)) {
          endPoint.close(new TimeoutException("request head not complete in time"));
        } else if (endPoint instanceof AbstractEndPoint e && e.getWriteFlusher().isPending()
            && e.getIdleFor() >= writeMillis) {
          endPoint.close(new TimeoutException("client did not read the response in time"));
        }
      } catch (RuntimeException e) {
        // one connection's failure to close must not stop the others' bounds
      }
    }
  }

  /** Where one connection is between its heads. Guarded by itself. */
  private static final class Tracked {
    private final Connection connection;
    /** Whether a head is awaited and counting (from {@link #headSince}). */
    private boolean awaiting = true;
    private long headSince;
    private boolean handling;
    /** The bytes received when the last request ended. */
    private long bytesAtEnd;

    Tracked(Connection connection, long openedNanos) {
      this.connection = connection;
      this.headSince = openedNanos;
    }

    synchronized void headArrived() {
      handling = true;
      awaiting = false;
    }

    synchronized void requestEnded() {
      handling = false;
      awaiting = false;
      bytesAtEnd = connection.getBytesIn();
    }

    synchronized boolean headLate(long now, long headerNanos) {
      if (handling) {
        return false;
      }
      if (!awaiting) {
        if (connection.getBytesIn() > bytesAtEnd) {
          // The next head began since the last pass: it counts from now, at most a tick late.
          awaiting = true;
          headSince = now;
        }
        return false;
      }
      return now - headSince >= headerNanos;
    }
  }
}
