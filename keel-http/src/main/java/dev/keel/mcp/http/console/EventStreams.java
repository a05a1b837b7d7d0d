package dev.keel.mcp.http.console;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The pages' live feeds ({@code /events}): one snapshot a second, built once on the console's
 * timer thread and written to each open stream on a writer thread. A stream holds no thread
 * while it waits (servlet async); a stream whose previous frame is still being written (a
 * stalled reader) skips this one, so one slow page neither delays the others nor piles up
 * frames. A write that fails, and the container's timeout, error and complete events, all end
 * a stream the same way.
 */
final class EventStreams {

  private static final Logger LOG = LoggerFactory.getLogger(EventStreams.class);
  /** The most open feeds: an operator console has a handful of readers, not thousands. */
  static final int MAX = 32;

  private final java.util.Map<AsyncContext, java.util.concurrent.atomic.AtomicBoolean> open =
      new ConcurrentHashMap<>();
  private final java.util.concurrent.ExecutorService writers =
      dev.keel.mcp.server.transport.HandlerThreads.newExecutor("keel-console-writer");
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "keel-console-events");
    t.setDaemon(true);
    return t;
  });
  private final Supplier<String> snapshot;

  EventStreams(Supplier<String> snapshot) {
    this.snapshot = snapshot;
    timer.scheduleAtFixedRate(this::tick, 1, 1, TimeUnit.SECONDS);
  }

  /** Opens a feed on an async request; false when {@link #MAX} are open. */
  boolean open(AsyncContext async, HttpServletResponse resp) throws IOException {
    if (open.size() >= MAX) {
      return false;
    }
    async.setTimeout(0);
    async.addListener(new AsyncListener() {
      @Override
      public void onComplete(AsyncEvent e) {
        open.remove(async);
      }

      @Override
      public void onTimeout(AsyncEvent e) {
        end(async);
      }

      @Override
      public void onError(AsyncEvent e) {
        end(async);
      }

      @Override
      public void onStartAsync(AsyncEvent e) {
        // the same context: nothing to re-arm
      }
    });
    resp.setStatus(200);
    resp.setContentType("text/event-stream");
    resp.setCharacterEncoding("UTF-8");
    resp.setHeader("X-Accel-Buffering", "no");
    resp.getOutputStream().write(": keel console\n\n".getBytes(StandardCharsets.UTF_8));
    resp.flushBuffer();
    open.put(async, new java.util.concurrent.atomic.AtomicBoolean());
    // the first snapshot at once, so a page is never blank for a second
    timer.execute(() -> send(async, frame(snapshot.get())));
    return true;
  }

  private void tick() {
    if (open.isEmpty()) {
      return;
    }
    byte[] frame;
    try {
      frame = frame(snapshot.get());
    } catch (RuntimeException e) {
      LOG.warn("could not build the console's snapshot", e);
      return;
    }
    for (AsyncContext async : open.keySet()) {
      send(async, frame);
    }
  }

  /** Hands a frame to a writer thread unless the stream is still busy with the last one. */
  private void send(AsyncContext async, byte[] frame) {
    java.util.concurrent.atomic.AtomicBoolean writing = open.get(async);
    if (writing == null || !writing.compareAndSet(false, true)) {
      return;
    }
    try {
      writers.execute(() -> {
        try {
          write(async, frame);
        } finally {
          writing.set(false);
        }
      });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      writing.set(false);
    }
  }

  private static byte[] frame(String json) {
    return ("event: snapshot\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  private void write(AsyncContext async, byte[] frame) {
    if (!open.containsKey(async)) {
      return;
    }
    try {
      var out = async.getResponse().getOutputStream();
      out.write(frame);
      out.flush();
    } catch (IOException | IllegalStateException e) {
      end(async);
    }
  }

  private void end(AsyncContext async) {
    if (open.remove(async) != null) {
      try {
        async.complete();
      } catch (IllegalStateException ignored) {
        // already completed by the container
      }
    }
  }

  int size() {
    return open.size();
  }

  void close() {
    timer.shutdownNow();
    writers.shutdownNow();
    for (AsyncContext async : open.keySet()) {
      end(async);
    }
  }
}
