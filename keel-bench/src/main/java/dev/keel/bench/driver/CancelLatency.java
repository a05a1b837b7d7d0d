package dev.keel.bench.driver;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Cancels blocked tool calls and lets the server say how long each cancellation took from the
 * arrival of {@code notifications/cancelled} to the handler's interrupt (the probed Keel server
 * measures it; see {@code CancelProbe}). Each lane owns a session and two connections: one
 * carries the call, the other the cancellation, which is sent once the call's stream shows the
 * handler's first progress notification, so it never races the call's own arrival. Latency here is not throughput, so plain
 * blocking sockets on a few threads suffice.
 */
final class CancelLatency {

  static final String BLOCK = "bench_block";
  static final String STATS = "bench_cancel_stats";
  /** How long a lane or the driver waits for the others between warm-up and measurement. */
  private static final long BARRIER_MINUTES = 10;

  private final InetSocketAddress address;
  private final Wire wire;
  private volatile String firstFailure;

  CancelLatency(InetSocketAddress address, Wire wire) {
    this.address = address;
    this.wire = wire;
  }

  /**
   * Runs {@code warmup} cancellations, makes the server forget their latencies (and any of an
   * earlier run), waits
   * {@code settleMillis} (an idle server's JIT drains its compile queue), then runs {@code total}
   * measured ones on the same connections and sessions. A fresh driver's first
   * connections and handshakes send the server's JIT back to recompiling its HTTP path for a few
   * seconds; warming on the lanes that are then measured keeps that out of the measurement.
   *
   * @return the failures seen in the measured part
   */
  int run(int warmup, long settleMillis, int total, int lanes) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(lanes);
    // Lanes meet here after their warm-up, once more after the server's stats were reset.
    CyclicBarrier warmed = new CyclicBarrier(lanes + 1);
    CyclicBarrier measuring = new CyclicBarrier(lanes + 1);
    try {
      List<Future<Integer>> results = new ArrayList<>();
      for (int lane = 0; lane < lanes; lane++) {
        int laneId = lane;
        int warm = warmup / lanes + (lane < warmup % lanes ? 1 : 0);
        int share = total / lanes + (lane < total % lanes ? 1 : 0);
        results.add(pool.submit(() -> lane(laneId, warm, share, warmed, measuring)));
      }
      try {
        warmed.await(BARRIER_MINUTES, TimeUnit.MINUTES);
        serverStats();
        Thread.sleep(settleMillis);
        measuring.await(BARRIER_MINUTES, TimeUnit.MINUTES);
      } catch (BrokenBarrierException e) {
        for (Future<Integer> f : results) {
          f.get(); // the lane that broke the barrier tells why
        }
        throw e;
      }
      int failures = 0;
      for (Future<Integer> f : results) {
        failures += f.get();
      }
      return failures;
    } finally {
      pool.shutdownNow();
    }
  }

  /** Returns what the first failed cancellation looked like, or null. */
  String firstFailure() {
    return firstFailure;
  }

  /** Asks the server for its measurements (and makes it forget them): JSON text. */
  String serverStats() throws IOException {
    try (Blocking conn = new Blocking(address)) {
      ResponseParser init = conn.exchange(wire.initialize(1));
      String session = init.sessionId();
      conn.exchange(wire.initialized(session));
      ResponseParser r = conn.exchange(wire.call(Wire.Style.SESSION, session, 2, STATS, "{}"));
      String body = r.bodyText();
      int start = body.indexOf("{\\\"count");
      int end = body.indexOf('}', start);
      conn.exchange(wire.delete(session));
      return body.substring(start, end + 1).replace("\\\"", "\"");
    }
  }

  private int lane(int lane, int warm, int count, CyclicBarrier warmed,
      CyclicBarrier measuring) throws Exception {
    try (Blocking calls = new Blocking(address); Blocking cancels = new Blocking(address)) {
      String session;
      try {
        session = calls.exchange(wire.initialize(1)).sessionId();
        calls.exchange(wire.initialized(session));
        cancelSome(calls, cancels, session, lane, 0, warm);
      } catch (Exception | Error e) {
        warmed.reset(); // the others, and the driver, stop waiting for this lane
        throw e;
      }
      warmed.await(BARRIER_MINUTES, TimeUnit.MINUTES);
      measuring.await(BARRIER_MINUTES, TimeUnit.MINUTES);
      int failures = cancelSome(calls, cancels, session, lane, warm, count);
      calls.exchange(wire.delete(session));
      return failures;
    }
  }

  /** Cancels {@code count} calls, ids from {@code first} on; returns the failures seen. */
  private int cancelSome(Blocking calls, Blocking cancels, String session, int lane, int first,
      int count) throws IOException {
    int failures = 0;
    for (int i = first; i < first + count; i++) {
      long id = 100 + i;
      String key = lane + "-" + i;
      calls.send(wire.callWithProgress(session, id, BLOCK, "{\"key\":\"" + key + "\"}", key));
      if (!calls.receiveUntil("notifications/progress")) {
        failures++;
        firstFailure = "the call ended before its handler reported progress: "
            + calls.parser.bodyText();
        continue;
      }
      ResponseParser cancelled = cancels.exchange(wire.cancelled(session, id, key));
      ResponseParser ended = calls.finish();
      if (cancelled.status() != 202 || ended.bodyText().contains("\"id\":" + id + ",")) {
        failures++;
        firstFailure = "cancel HTTP " + cancelled.status() + ", call HTTP " + ended.status()
            + " " + ended.bodyText();
      }
    }
    return failures;
  }

  /** One blocking keep-alive connection. */
  static final class Blocking implements AutoCloseable {
    private final Socket socket = new Socket();
    private final OutputStream out;
    private final InputStream in;
    private final ResponseParser parser = new ResponseParser();
    private final ByteBuffer buffer = ByteBuffer.allocate(16 * 1024);

    Blocking(InetSocketAddress address) throws IOException {
      socket.setTcpNoDelay(true);
      socket.connect(address, 5000);
      socket.setSoTimeout(30_000);
      out = socket.getOutputStream();
      in = socket.getInputStream();
      buffer.flip();
    }

    ResponseParser exchange(byte[] request) throws IOException {
      send(request);
      return receive();
    }

    void send(byte[] request) throws IOException {
      out.write(request);
      out.flush();
    }

    ResponseParser receive() throws IOException {
      parser.reset();
      return finish();
    }

    /**
     * Starts reading a response and stops once its body shows {@code marker}; returns false
     * when the response ended without it.
     */
    boolean receiveUntil(String marker) throws IOException {
      parser.reset();
      while (!parser.feed(buffer)) {
        if (parser.bodyText().contains(marker)) {
          return true;
        }
        if (!fill()) {
          return false;
        }
      }
      return false;
    }

    /** Reads the rest of the response under way. */
    ResponseParser finish() throws IOException {
      while (!parser.feed(buffer)) {
        if (!fill()) {
          return parser;
        }
      }
      return parser;
    }

    /** Reads more bytes; returns false when the peer closed and that ended the response. */
    private boolean fill() throws IOException {
      buffer.compact();
      int n = in.read(buffer.array(), buffer.position(), buffer.remaining());
      if (n < 0) {
        buffer.flip();
        if (parser.endOfStream()) {
          return false;
        }
        throw new IOException("connection closed mid-response");
      }
      buffer.position(buffer.position() + n);
      buffer.flip();
      return true;
    }

    @Override
    public void close() throws IOException {
      socket.close();
    }
  }
}
